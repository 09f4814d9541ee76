/**
 * The task worker: claims due tasks from the due index by atomic check, runs each under a lease
 * that it renews while the work lasts, and lets handlers end them (core/tasks/task_store.ts).
 * State lives in KV, so several gateway processes on one KV share the work and a killed process
 * loses nothing: its leases run out and another run picks the tasks up. A KV queue message wakes
 * the loop at once where queues exist (embedded KV); the loop also polls, which is all there is
 * on KV Connect. On Deno Deploy, where an instance lives only while it has traffic, a cron calls
 * `sweepDue()` every minute besides (workers/sweeps.ts).
 */

import type { Gateway } from "../core/gateway.ts";
import { timeOrderedId } from "../core/util/ids.ts";
import type { TaskRecord } from "../core/tasks/task_record.ts";
import { PollLoop } from "../core/util/poll_loop.ts";

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
  readonly #loop: PollLoop;

  constructor(
    gateway: Gateway,
    handlers: Partial<Record<TaskRecord["kind"], TaskKind>>,
    options: TaskWorkerOptions,
  ) {
    this.#gateway = gateway;
    this.#handlers = handlers;
    this.#options = options;
    this.#loop = new PollLoop({
      pass: () => this.#claimDue(),
      intervalMs: options.pollMs,
      onError: (error) =>
        console.error(JSON.stringify({ msg: "task claim failed", error: String(error) })),
    });
  }

  start(): void {
    if (this.#options.useQueue) {
      this.#gateway.kv.listenQueue((message) => {
        if ((message as { wake?: string })?.wake === "tasks") this.wake();
      }).catch(() => {});
    }
    this.#loop.start();
  }

  /** Looks at the due index now rather than at the next poll. */
  wake(): void {
    this.#loop.wake();
  }

  /** Stops claiming, aborts running tasks and gives their leases back for the next process. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop.stop();
    for (const { controller } of this.#running.values()) controller.abort();
    await Promise.allSettled([...this.#running.values()].map((run) => run.done));
  }

  /** Tasks this process is running now. */
  get active(): number {
    return this.#running.size;
  }

  /**
   * Runs what is due now and waits for those runs to end; again while a pass finds work and
   * `budgetMs` lasts (a cron invocation must end). Returns how many runs it started. Safe beside
   * the loop and on other instances: each run is claimed by an atomic check.
   */
  async sweepDue(budgetMs = 45_000): Promise<number> {
    const deadline = Date.now() + budgetMs;
    let started = 0;
    while (!this.#stopped && Date.now() < deadline) {
      const runs = await this.#claimDue();
      if (runs.length === 0) break;
      started += runs.length;
      await Promise.allSettled(runs);
    }
    return started;
  }

  /** Claims what is due, up to the free places; returns the runs it started. */
  async #claimDue(): Promise<Promise<void>[]> {
    const started: Promise<void>[] = [];
    const free = this.#options.concurrency - this.#running.size;
    if (free <= 0) return started;
    for await (const due of this.#gateway.tasks.due(CLAIM_BATCH)) {
      if (started.length >= free || this.#stopped) break;
      if (this.#running.has(due.taskId)) continue;
      const task = await this.#gateway.tasks.claim(due, {
        workerId: this.id,
        leaseMs: this.#options.leaseMs,
        accepts: (task) => task.kind in this.#handlers,
        onClaim: (task) => this.#handlers[task.kind]?.onClaim?.(task) ?? {},
      });
      if (!task) continue;
      const controller = new AbortController();
      const done = this.#execute(this.#handlers[task.kind]!.run, task, controller);
      this.#running.set(task.id, { controller, done });
      started.push(done);
    }
    return started;
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
      const held = await this.#gateway.tasks.renew(taskId, {
        workerId: this.id,
        leaseMs: this.#options.leaseMs,
      });
      if (!held) controller.abort();
    } catch {
      // KV hiccup: the next renewal tries again, well before the lease runs out
    }
  }

  /** Releases this worker's lease, due again `at`; `uncount` runs are taken off its attempts. */
  #giveBack(taskId: string, at: number, uncount: number): Promise<void> {
    return this.#gateway.tasks.giveBack(taskId, { workerId: this.id, at, uncount });
  }
}
