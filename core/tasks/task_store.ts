/**
 * The task store: every read and write of task records. A record and its due-index entry change
 * together in one commit checked against the record's versionstamp, so a worker that lost its
 * lease can never overwrite a newer state; a task is created in the commit that holds its money
 * and ended in the commit that settles or releases it, so its money moves exactly once. Every
 * write goes through forwardOnly, so a task's status and progress only ever move forward.
 */

import { GatewayError } from "../errors.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import {
  type BillableKey,
  type Ledger,
  type LedgerEntry,
  type SpendingLimit,
  walletOf,
} from "../billing/ledger.ts";
import { kvListOptions, type ListOptions, timeRangeSelector } from "../kv/list_options.ts";
import { forwardOnly, isFinished, type TaskRecord, unixNow, writeTask } from "./task_record.ts";
import type { KvAtomic, KvBackend } from "../kv/kv_backend.ts";

/** Fields a worker may change under its lease. */
export type TaskUpdate = Partial<Omit<TaskRecord, "id" | "owner" | "key_id" | "held">>;

export interface TaskStoreOptions {
  ledger: Ledger;
  /** The spending limit of a key, for settling a task's hold. */
  limitOf(keyId: string): Promise<SpendingLimit>;
  /** Whether KV queues exist here: a new task then enqueues a wake-up in its commit. */
  queue: boolean;
  /** Wakes this process's worker after a submission. */
  wake(): void;
  /**
   * What else the commit that ends a task writes (the webhook outbox event), and what to do
   * once it is in (wake the webhook worker). Tasks know nothing more of webhooks.
   */
  onEnd?: TaskEndHook;
}

/** The hook of a task's end: writes into its commit, then hears it committed. */
export interface TaskEndHook {
  write(atomic: KvAtomic, task: TaskRecord): void;
  committed(task: TaskRecord): void;
}

/** A due-index entry: the task to look at and the index key it sits under. */
/** What an admin list of tasks may be narrowed to. */
export interface TaskFilter {
  kind?: TaskRecord["kind"];
  status?: TaskRecord["status"];
  model?: string;
  key?: string;
  /** Tasks of any of these keys (an account's). */
  keys?: ReadonlySet<string>;
}

function matches(task: TaskRecord, filter: TaskFilter): boolean {
  return (!filter.kind || task.kind === filter.kind) &&
    (!filter.status || task.status === filter.status) &&
    (!filter.model || task.model === filter.model) &&
    (!filter.key || task.key_id === filter.key) &&
    (!filter.keys || filter.keys.has(task.key_id));
}

export interface DueTask {
  taskId: string;
  dueKey: Deno.KvKey;
}

export class TaskStore {
  readonly #kv: KvBackend;
  readonly #options: TaskStoreOptions;

  constructor(kv: KvBackend, options: TaskStoreOptions) {
    this.#kv = kv;
    this.#options = options;
  }

  /** Wakes the worker (set once the worker runs). */
  set wake(wake: () => void) {
    this.#options.wake = wake;
  }

  /** The task, or null. */
  async get<Input = unknown>(id: string): Promise<TaskRecord<Input> | null> {
    if (!id.startsWith("task_")) return null;
    return (await this.#kv.get<TaskRecord<Input>>(kvKeys.task(id))).value;
  }

  /**
   * The task of `kind` if a key of `owner` paying from `wallet` may read it: the same owner, in
   * the same account (an owner label two accounts' keys share does not share their tasks); null
   * for any other (never says which).
   */
  async getOwned<Input = unknown>(
    id: string,
    filter: { owner: string; wallet: string; kind: TaskRecord["kind"] },
  ): Promise<TaskRecord<Input> | null> {
    const task = await this.get<Input>(id);
    return task && task.kind === filter.kind && task.owner === filter.owner &&
        walletOfTask(task) === filter.wallet
      ? task
      : null;
  }

  /**
   * Tasks, newest first unless `options.order` is `asc`, those not matching `filter` left out of
   * the page (the cursor still moves past them).
   */
  async list(options: ListOptions, filter: TaskFilter = {}) {
    const iterator = this.#kv.list<string>(
      timeRangeSelector(kvKeys.tasksByTime(), (ms) => ms, options),
      kvListOptions(options),
    );
    const ids: string[] = [];
    for await (const entry of iterator) ids.push(entry.value);
    const data: TaskRecord[] = [];
    for (let i = 0; i < ids.length; i += 10) {
      const found = await this.#kv.getMany<TaskRecord[]>(
        ids.slice(i, i + 10).map((id) => kvKeys.task(id)),
      );
      for (const entry of found) {
        if (entry.value && matches(entry.value, filter)) data.push(entry.value);
      }
    }
    return { data, cursor: ids.length === options.limit ? iterator.cursor : null };
  }

  /**
   * Writes a new task in the commit that holds its money, so a task exists exactly when its
   * money is held. With `idempotent`, a second task of the same id is refused by the commit
   * (two identical idempotent requests at once make one task).
   */
  async create(
    task: TaskRecord,
    input: { key: BillableKey; idempotent?: boolean; remedy?: string },
  ): Promise<LedgerEntry> {
    const entry = await this.#options.ledger.hold(walletOf(input.key), {
      keyId: input.key.id,
      limit: input.key,
      ref: task.id,
      amount: task.held,
      uniqueRef: !input.idempotent,
      remedy: input.remedy,
      caps: { spend_limits: input.key.spend_limits },
      alsoWrite: (atomic) => {
        if (input.idempotent) atomic.check({ key: kvKeys.task(task.id), versionstamp: null });
        writeTask(atomic, { previous: null, next: task });
        if (this.#options.queue) atomic.enqueue({ wake: "tasks" });
      },
    });
    this.#options.wake();
    return entry;
  }

  /** Tasks due by now, in due order. */
  async *due(limit: number): AsyncGenerator<DueTask> {
    const entries = this.#kv.list<string>({
      start: kvKeys.tasksDue() as unknown as Deno.KvKey,
      end: [...kvKeys.tasksDue(), Date.now() + 1],
    }, { limit });
    for await (const entry of entries) yield { taskId: entry.value, dueKey: entry.key };
  }

  /**
   * Takes the lease of a due task for `workerId`; null when it is not claimable (another worker
   * took it, it ended, or its index entry is stale — which is then dropped).
   */
  claim(
    due: DueTask,
    input: {
      workerId: string;
      leaseMs: number;
      accepts(task: TaskRecord): boolean;
      onClaim?(task: TaskRecord): Partial<TaskRecord>;
    },
  ): Promise<TaskRecord | null> {
    return withKvRetry(async () => {
      const entry = await this.#kv.get<TaskRecord>(kvKeys.task(due.taskId));
      const task = entry.value;
      if (!task || isFinished(task) || task.next_check_at !== due.dueKey[1]) {
        // An index entry left behind by a change that did not touch it: drop it.
        await this.#kv.atomic().check(entry).delete(due.dueKey).commit();
        return null;
      }
      if (!input.accepts(task)) return null;
      const now = Date.now();
      const claimed: TaskRecord = forwardOnly(task, {
        ...task,
        ...input.onClaim?.(task),
        start_time: task.start_time ?? unixNow(),
        attempts: task.attempts + 1,
        lease_owner: input.workerId,
        lease_until: now + input.leaseMs,
        next_check_at: now + input.leaseMs,
      });
      const result = await writeTask(this.#kv.atomic().check(entry), {
        previous: task,
        next: claimed,
      }).commit();
      return result.ok ? claimed : null;
    });
  }

  /** Reads the task if `workerId` holds its lease and it is not finished. */
  async #leased(taskId: string, workerId: string): Promise<Deno.KvEntry<TaskRecord> | null> {
    const entry = await this.#kv.get<TaskRecord>(kvKeys.task(taskId));
    const task = entry.value;
    if (!task || isFinished(task) || task.lease_owner !== workerId) return null;
    return entry as Deno.KvEntry<TaskRecord>;
  }

  /**
   * Applies `update` under `workerId`'s lease; false when the lease was lost. A status or a
   * progress that would move the task backwards is not applied (see forwardOnly).
   */
  update(
    taskId: string,
    { workerId, update }: { workerId: string; update: TaskUpdate },
  ): Promise<boolean> {
    return withKvRetry(async () => {
      const entry = await this.#leased(taskId, workerId);
      if (!entry) return false;
      const next = forwardOnly(entry.value, { ...entry.value, ...update });
      const result = await writeTask(this.#kv.atomic().check(entry), {
        previous: entry.value,
        next,
      }).commit();
      return result.ok;
    });
  }

  /**
   * The operator's answer to a task held with `submission_unknown.needs_operator`: the upstream
   * task they found (`upstreamId`: polled from now on), or that none was made (`resubmit`: it is
   * submitted again). Due at once. Throws 409 when the task is not held (or a worker holds it).
   */
  async resolveUnknown(
    taskId: string,
    resolution: { upstreamId: string } | { resubmit: true },
  ): Promise<TaskRecord> {
    return await withKvRetry(async () => {
      const entry = await this.#kv.get<TaskRecord>(kvKeys.task(taskId));
      const task = entry.value;
      if (!task) throw new GatewayError("task_not_found", 404, `No task has the id '${taskId}'`);
      const leased = task.lease_owner !== null && (task.lease_until ?? 0) > Date.now();
      if (isFinished(task) || !task.submission_unknown?.needs_operator || leased) {
        throw new GatewayError(
          "task_not_held",
          409,
          `Task '${taskId}' is not held for the operator (only an unfinished task whose ` +
            "submission got no answer, on an upstream without an idempotency key, is)",
        );
      }
      const now = Date.now();
      const next: TaskRecord = {
        ...task,
        ...("upstreamId" in resolution
          ? { upstream_id: resolution.upstreamId }
          : { channel_id: null, upstream_id: null }),
        submission_unknown: null,
        fail_reason: null,
        next_check_at: now,
        lease_owner: null,
        lease_until: null,
      };
      const result = await writeTask(this.#kv.atomic().check(entry), { previous: task, next })
        .commit();
      if (!result.ok) throw new GatewayError("conflict", 409, "The task changed meanwhile; retry");
      this.#options.wake();
      return next;
    });
  }

  /** Extends `workerId`'s lease by `leaseMs`; false when another worker owns the task now. */
  renew(
    taskId: string,
    { workerId, leaseMs }: { workerId: string; leaseMs: number },
  ): Promise<boolean> {
    const until = Date.now() + leaseMs;
    return this.update(taskId, { workerId, update: { lease_until: until, next_check_at: until } });
  }

  /** Gives the task back to be picked up again at `at`; false when the lease was lost. */
  reschedule(
    taskId: string,
    input: { workerId: string; at: number; update?: TaskUpdate },
  ): Promise<boolean> {
    return this.update(taskId, {
      workerId: input.workerId,
      update: {
        ...input.update,
        next_check_at: input.at,
        lease_owner: null,
        lease_until: null,
      },
    });
  }

  /**
   * Releases `workerId`'s lease on an unfinished task, due again at `at`; `uncount` runs are
   * taken off its attempts (a run cut short by shutdown does not count). Never throws.
   */
  async giveBack(
    taskId: string,
    input: { workerId: string; at: number; uncount: number },
  ): Promise<void> {
    await withKvRetry(async () => {
      const entry = await this.#leased(taskId, input.workerId);
      if (!entry) return;
      const task = entry.value;
      const next = {
        ...task,
        attempts: Math.max(0, task.attempts - input.uncount),
        lease_owner: null,
        lease_until: null,
        next_check_at: input.at,
      };
      await writeTask(this.#kv.atomic().check(entry), { previous: task, next }).commit();
    }).catch(() => {});
  }

  /**
   * Ends the task with `update` (status succeeded or failed) and, in the same commit, settles its
   * hold to `money.cost` or releases it, returning the ledger entry that did it. Returns false
   * when `workerId` no longer holds the lease or the task had already ended: then nothing was
   * written.
   */
  async end(
    task: Pick<TaskRecord, "id" | "key_id" | "wallet_id">,
    input: {
      workerId: string;
      update: TaskUpdate;
      money: { cost: number } | { release: string };
    },
  ): Promise<false | { entry: LedgerEntry | null }> {
    const { workerId, update, money } = input;
    const ledger = this.#options.ledger;
    let applied = false;
    let ended: TaskRecord | undefined;
    const guard = async (atomic: KvAtomic) => {
      applied = false;
      const entry = await this.#leased(task.id, workerId);
      if (!entry) return false;
      const next: TaskRecord = forwardOnly(entry.value, {
        ...entry.value,
        ...update,
        lease_owner: null,
        lease_until: null,
      });
      writeTask(atomic.check(entry), { previous: entry.value, next });
      this.#options.onEnd?.write(atomic, next);
      ended = next;
      applied = true;
      return true;
    };
    // A retry is safe: the guard re-reads the lease, and the ledger moves a ref's money once.
    const entry = await withKvRetry(async () => {
      if ("cost" in money) {
        const limit = await this.#options.limitOf(task.key_id);
        return await ledger.settle(task.wallet_id ?? task.key_id, {
          limit,
          ref: task.id,
          cost: money.cost,
          guard,
        });
      }
      const wallet = task.wallet_id ?? task.key_id;
      return await ledger.release(wallet, { ref: task.id, note: money.release, guard });
    });
    if (applied && ended) this.#options.onEnd?.committed(ended);
    return applied && { entry };
  }
}

/** The wallet `task`'s money is held in (before accounts: its key's own). */
export function walletOfTask(task: Pick<TaskRecord, "key_id" | "wallet_id">): string {
  return task.wallet_id ?? task.key_id;
}
