/**
 * The task worker: claims due tasks from the due index by atomic check, runs each under a lease
 * that it renews while the work lasts, and lets handlers end them (core/task_lifecycle.ts).
 * State lives in KV, so several gateway processes on one KV share the work and a killed process
 * loses nothing: its leases run out and another run picks the tasks up. A KV queue message wakes
 * the loop at once where queues exist (embedded KV); the loop also polls, which is all there is
 * on KV Connect.
 */

import type { Gateway } from "../core/gateway.ts";
import { timeOrderedId } from "../core/ids.ts";
import { kvKeys } from "../core/kv_keys.ts";
import { withKvRetry } from "../core/kv_retry.ts";
import { isFinished, type TaskRecord, unixNow, writeTask } from "../core/task_record.ts";

/** What a handler gets: the claimed task and a signal that fires if the lease is lost. */
export interface TaskRun {
  task: TaskRecord;
  workerId: string;
  signal: AbortSignal;
}

export type TaskHandler = (gateway: Gateway, run: TaskRun) => Promise<void>;

/** How one kind of task is run. */
export interface TaskKind {
  run: TaskHandler;
  /** What a claim changes in the record besides the lease, e.g. the status shown. */
  onClaim?: (task: TaskRecord) => Partial<TaskRecord>;
}

export interface TaskWorkerOptions {
  /** How long a claim lasts without renewal; a dead worker's tasks wait this long. */
  leaseMs: number;
  /** Poll interval of the due index when no wake-up comes. */
  pollMs: number;
  /** Tasks run at once by this process. */
  concurrency: number;
  /** Listen on the KV queue for wake-ups (not on KV Connect, where queues do not exist). */
  useQueue: boolean;
}

const CLAIM_BATCH = 50;
/** A task whose handler threw (a KV or programming fault) is looked at again after this. */
const RETRY_AFTER_ERROR_MS = 1_000;

export class TaskWorker {
  readonly id = timeOrderedId("wrk");
  #gateway: Gateway;
  #handlers: Partial<Record<TaskRecord["kind"], TaskKind>>;
  #options: TaskWorkerOptions;
  #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #stopped = false;
  #loop?: Promise<void>;
  #wake?: () => void;
  #woken = false;

  constructor(
    gateway: Gateway,
    handlers: Partial<Record<TaskRecord["kind"], TaskKind>>,
    options: TaskWorkerOptions,
  ) {
    this.#gateway = gateway;
    this.#handlers = handlers;
    this.#options = options;
  }

  start(): void {
    if (this.#options.useQueue) {
      this.#gateway.kv.listenQueue((message) => {
        if ((message as { wake?: string })?.wake === "tasks") this.wake();
      }).catch(() => {});
    }
    this.#loop = this.#run();
  }

  /** Looks at the due index now rather than at the next poll. */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** Stops claiming, aborts running tasks and gives their leases back for the next process. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.wake();
    await this.#loop;
    for (const { controller } of this.#running.values()) controller.abort();
    await Promise.allSettled([...this.#running.values()].map((run) => run.done));
  }

  /** Tasks this process is running now. */
  get active(): number {
    return this.#running.size;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      this.#woken = false;
      try {
        await this.#claimDue();
      } catch (error) {
        console.error(JSON.stringify({ msg: "task claim failed", error: String(error) }));
      }
      if (this.#woken || this.#stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#options.pollMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  async #claimDue(): Promise<void> {
    const free = this.#options.concurrency - this.#running.size;
    if (free <= 0) return;
    const kv = this.#gateway.kv;
    const due = kv.list<string>({
      start: kvKeys.tasksDue() as unknown as Deno.KvKey,
      end: [...kvKeys.tasksDue(), Date.now() + 1],
    }, { limit: CLAIM_BATCH });
    let claimed = 0;
    for await (const entry of due) {
      if (claimed >= free || this.#stopped) break;
      const taskId = entry.value;
      if (this.#running.has(taskId)) continue;
      if (await withKvRetry(() => this.#claim(taskId, entry.key))) claimed++;
    }
  }

  async #claim(taskId: string, dueKey: Deno.KvKey): Promise<boolean> {
    const kv = this.#gateway.kv;
    const entry = await kv.get<TaskRecord>(kvKeys.task(taskId));
    const task = entry.value;
    if (!task || isFinished(task) || task.next_check_at !== dueKey[1]) {
      // An index entry left behind by a change that did not touch it: drop it.
      await kv.atomic().check(entry).delete(dueKey).commit();
      return false;
    }
    const kind = this.#handlers[task.kind];
    if (!kind) return false;
    const now = Date.now();
    const claimed: TaskRecord = {
      ...task,
      ...kind.onClaim?.(task),
      start_time: task.start_time ?? unixNow(),
      attempts: task.attempts + 1,
      lease_owner: this.id,
      lease_until: now + this.#options.leaseMs,
      next_check_at: now + this.#options.leaseMs,
    };
    const result = await writeTask(kv.atomic().check(entry), task, claimed).commit();
    if (!result.ok) return false;
    const controller = new AbortController();
    const done = this.#execute(kind.run, claimed, controller);
    this.#running.set(taskId, { controller, done });
    return true;
  }

  async #execute(
    handler: TaskHandler,
    task: TaskRecord,
    controller: AbortController,
  ): Promise<void> {
    const renew = setInterval(
      () => this.#renew(task.id, controller),
      Math.max(50, this.#options.leaseMs / 3),
    );
    try {
      await handler(this.#gateway, { task, workerId: this.id, signal: controller.signal });
    } catch (error) {
      console.error(JSON.stringify({
        msg: "task handler failed",
        task_id: task.id,
        error: error instanceof Error ? error.message : String(error),
      }));
      // Not left to wait for the lease to run out: due again shortly, the run still counted.
      if (!this.#stopped) await this.#giveBack(task.id, Date.now() + RETRY_AFTER_ERROR_MS, 0);
    } finally {
      clearInterval(renew);
      this.#running.delete(task.id);
      if (this.#stopped) await this.#giveBack(task.id, Date.now(), 1);
      else this.wake();
    }
  }

  /** Extends the lease; aborts the run if another worker owns the task now. */
  async #renew(taskId: string, controller: AbortController): Promise<void> {
    try {
      await withKvRetry(() => this.#renewOnce(taskId, controller));
    } catch {
      // KV hiccup: the next renewal tries again, well before the lease runs out
    }
  }

  async #renewOnce(taskId: string, controller: AbortController): Promise<void> {
    const kv = this.#gateway.kv;
    const entry = await kv.get<TaskRecord>(kvKeys.task(taskId));
    const task = entry.value;
    if (!task || isFinished(task) || task.lease_owner !== this.id) {
      controller.abort();
      return;
    }
    const until = Date.now() + this.#options.leaseMs;
    const next = { ...task, lease_until: until, next_check_at: until };
    const result = await writeTask(kv.atomic().check(entry), task, next).commit();
    if (!result.ok) controller.abort();
  }

  /**
   * Releases this worker's lease on an unfinished task, due again `at`; `uncount` runs are
   * taken off its attempts (a run cut short by shutdown does not count).
   */
  async #giveBack(taskId: string, at: number, uncount: number): Promise<void> {
    const kv = this.#gateway.kv;
    await withKvRetry(async () => {
      const entry = await kv.get<TaskRecord>(kvKeys.task(taskId));
      const task = entry.value;
      if (!task || isFinished(task) || task.lease_owner !== this.id) return;
      const next = {
        ...task,
        attempts: Math.max(0, task.attempts - uncount),
        lease_owner: null,
        lease_until: null,
        next_check_at: at,
      };
      await writeTask(kv.atomic().check(entry), task, next).commit();
    }).catch(() => {});
  }
}
