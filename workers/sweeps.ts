/**
 * The sweeps: work no request triggers. Each is idempotent and safe with several instances on one
 * KV (every change it makes is checked by KV or harmless twice), so every instance runs them all.
 *
 *   - due tasks: claim and run the tasks whose time has come (the task worker's loop does this
 *     every GATEWAY_TASK_POLL_MS; on Deploy an instance may not be up, so a cron does it too);
 *   - due webhooks: fan out ended tasks and send due deliveries (the webhook worker's loop, and
 *     a cron on Deploy, the same way);
 *   - orphaned holds: release the holds of requests whose process died (instance leases);
 *   - media expiry: delete hosted media past its expiry;
 *   - request-log retention: delete request log records past the retention period;
 *   - channel recovery: probe the keys and channels the gateway disabled on its own, and enable
 *     them again when they answer (one instance at a time, under a lease; channel_recovery.ts).
 *
 * A long-lived process runs each on its own timer loop (SweepLoop). On Deno Deploy, where an
 * instance lives only while it has traffic, Deno.cron runs them as well (registerCrons), so nothing
 * waits for a request to arrive: a task's worst-case wait there is the due-task cron's interval.
 */

import type { Gateway } from "../core/gateway.ts";
import { isInstanceAlive } from "../core/kv/instance_lease.ts";
import { sweepExpiredMedia } from "../core/media/media_expiry.ts";
import { DEFAULT_RETENTION_MS } from "../core/telemetry/request_log.ts";
import { sweepRequestLog } from "../core/telemetry/request_log_retention.ts";
import { PollLoop } from "../core/util/poll_loop.ts";
import type { TaskWorker } from "./task_worker.ts";
import { RECOVERY_EVERY_MS, runRecoveryProbes } from "./channel_recovery.ts";

/** Holds without an instance id (written before there were any) are released after this long. */
export const STALE_HOLD_MS = 60 * 60 * 1000;

export type SweepName =
  | "due-tasks"
  | "due-webhooks"
  | "orphaned-holds"
  | "media-expiry"
  | "request-log-retention"
  | "channel-recovery";

export interface Sweep {
  name: SweepName;
  /** How often the timer loop runs it; null: not on the loop (the task worker polls itself). */
  everyMs: number | null;
  run(): Promise<number>;
}

/**
 * Cron schedules on Deploy (UTC, at most once a minute). Fixed here, not read from settings:
 * Deploy finds crons by evaluating main.ts's top level, before any setting is read.
 */
export const CRON_SCHEDULES: Record<SweepName, string> = {
  "due-tasks": "* * * * *",
  "due-webhooks": "* * * * *",
  "orphaned-holds": "* * * * *",
  "media-expiry": "*/10 * * * *",
  "request-log-retention": "17 * * * *",
  "channel-recovery": "* * * * *",
};

/** The gateway's sweeps. */
export function gatewaySweeps(
  gateway: Gateway,
  worker: TaskWorker,
  options: { instanceLeaseMs: number },
): Sweep[] {
  const kv = gateway.kv;
  return [
    { name: "due-tasks", everyMs: null, run: () => worker.sweepDue() },
    { name: "due-webhooks", everyMs: null, run: () => gateway.webhooks.worker.sweepDue() },
    {
      name: "orphaned-holds",
      // Every half lease: a dead process's holds are released within 1.5 leases of its death,
      // exactly once (the ledger releases a hold once, whoever asks).
      everyMs: options.instanceLeaseMs / 2,
      run: () =>
        gateway.ledger.releaseOrphanedHolds({
          isAlive: (id) => isInstanceAlive(kv, id),
          maxAgeMs: STALE_HOLD_MS,
        }),
    },
    {
      name: "media-expiry",
      everyMs: 10 * 60_000,
      run: () => sweepExpiredMedia(kv, gateway.media),
    },
    {
      name: "request-log-retention",
      everyMs: 60 * 60_000,
      run: () => sweepRequestLog(kv, gateway.options.requestLogRetentionMs ?? DEFAULT_RETENTION_MS),
    },
    {
      name: "channel-recovery",
      everyMs: RECOVERY_EVERY_MS,
      run: () => runRecoveryProbes(gateway),
    },
  ];
}

function logFailure(name: string, error: unknown): void {
  console.error(JSON.stringify({ msg: "sweep failed", sweep: name, error: String(error) }));
}

/**
 * Runs each sweep on its own loop: `everyMs` after its last run ended, never two runs of one
 * sweep at once. `track` keeps a running sweep alive through shutdown.
 */
export class SweepLoop {
  readonly #loops = new Map<SweepName, PollLoop>();

  constructor(sweeps: Sweep[], options: { track?: <T>(work: Promise<T>) => Promise<T> } = {}) {
    for (const sweep of sweeps) {
      if (sweep.everyMs === null) continue;
      this.#loops.set(
        sweep.name,
        new PollLoop({
          pass: () => sweep.run(),
          intervalMs: sweep.everyMs,
          onError: (error) => logFailure(sweep.name, error),
          waitFirst: true,
          track: options.track,
        }),
      );
    }
  }

  /** Runs `name` now (also before the loop starts); resolves when that run ends. */
  async runNow(name: SweepName): Promise<void> {
    await this.#loops.get(name)?.runNow();
  }

  start(): void {
    for (const loop of this.#loops.values()) loop.start();
  }

  /** Stops the loops and waits for running sweeps. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.#loops.values()].map((loop) => loop.stop()));
  }
}

/**
 * Registers one Deno.cron per sweep, by name (`gateway-<sweep>`). Call it at main's top level:
 * Deploy discovers crons there. `sweeps` resolves once the gateway is up. Returns whether the
 * crons exist (Deno.cron needs "cron" in deno.json's "unstable").
 */
export function registerCrons(sweeps: () => Promise<Sweep[]>): boolean {
  const cron = (Deno as { cron?: typeof Deno.cron }).cron;
  if (typeof cron !== "function") return false;
  for (const [name, schedule] of Object.entries(CRON_SCHEDULES) as Array<[SweepName, string]>) {
    cron(`gateway-${name}`, schedule, async () => {
      const sweep = (await sweeps()).find((candidate) => candidate.name === name);
      try {
        await sweep?.run();
      } catch (error) {
        logFailure(name, error);
      }
    });
  }
  return true;
}
