/**
 * Boot: settings → platform → KV → config → app → Deno.serve; sweeps; graceful shutdown on
 * SIGINT/SIGTERM. On Deno Deploy (or without file writes) the platform's KV, secrets from the
 * environment and Deno.cron sweeps; see docs/deploy.md.
 */

import { createApp } from "./app.ts";
import { loadAdminToken } from "./core/keys/admin_token.ts";
import { type ParsedConfig, readConfigFile } from "./core/config_file.ts";
import { Gateway } from "./core/gateway.ts";
import { optionsFromSettings } from "./core/options_from_settings.ts";
import { loadSecretBox } from "./core/channels/secret_box.ts";
import {
  DEFAULT_KV_PATH,
  isPostgresKv,
  isRemoteKv,
  readSettings,
  type Settings,
} from "./core/settings.ts";
import { detectPlatform, type Platform } from "./core/platform.ts";
import { sha256Hex } from "./core/util/ids.ts";
import { buildTimeIndexes } from "./core/kv/time_indexes.ts";
import { upgradeToAccounts } from "./core/keys/accounts_upgrade.ts";
import { countingKv } from "./core/kv/counting_kv.ts";
import type { KvBackend } from "./core/kv/kv_backend.ts";
import { openPostgresKv, PostgresKv } from "./core/kv/postgres/postgres_kv.ts";
import type { Metrics } from "./core/telemetry/metrics.ts";
import { auditedChange } from "./core/audit/audited_change.ts";
import { IMAGE_TASKS } from "./workers/image_task.ts";
import { VIDEO_TASKS } from "./workers/video_task.ts";
import { TaskWorker } from "./workers/task_worker.ts";
import { gatewaySweeps, registerCrons, type Sweep, SweepLoop } from "./workers/sweeps.ts";
import type { Resolver } from "./core/webhooks/public_address.ts";
import { cutOpenStreams } from "./core/upstream/open_streams.ts";

export { STALE_HOLD_MS } from "./workers/sweeps.ts";
/** The share of GATEWAY_SHUTDOWN_MS kept, after open requests, for writing their charges. */
const SHUTDOWN_WRITE_SHARE = 0.2;
/** Tasks one process runs at once; image tasks are mostly waiting on the upstream. */
const TASK_CONCURRENCY = 64;

export interface RunningGateway {
  url: string;
  port: number;
  gateway: Gateway;
  platform: Platform;
  /** The sweeps (due tasks, orphaned holds, media expiry, request-log retention), for crons. */
  sweeps: Sweep[];
  /**
   * Stops accepting, lets in-flight requests finish, settles, flushes logs, closes KV; all of it
   * within GATEWAY_SHUTDOWN_MS, after which it resolves with whatever is still unwritten left
   * behind (docs/operations.md, "Stopping").
   */
  shutdown(): Promise<void>;
}

/**
 * Where KV lives: the platform's (Deno Deploy), memory, a KV Connect URL, a PostgreSQL database
 * (core/kv/postgres), or a local file.
 */
export type KvTarget =
  | { kind: "platform" }
  | { kind: "memory" }
  | { kind: "remote"; url: string }
  | { kind: "postgres"; url: string }
  | { kind: "file"; path: string };

/** GATEWAY_KV, or when unset the platform's KV on Deploy and ./data/gateway.kv elsewhere. */
export function kvTarget(location: string | undefined, platform: Platform): KvTarget {
  if (location === undefined) {
    return platform.serverless ? { kind: "platform" } : { kind: "file", path: DEFAULT_KV_PATH };
  }
  if (location === ":memory:") return { kind: "memory" };
  if (isRemoteKv(location)) return { kind: "remote", url: location };
  if (isPostgresKv(location)) return { kind: "postgres", url: location };
  return { kind: "file", path: location };
}

/**
 * What a serverless boot needs from the environment; throws naming what is missing. The gateway
 * writes no file there, so neither the secret key file nor a printed admin token can be used.
 */
export function checkServerless(settings: Settings, platform: Platform, target: KvTarget): void {
  if (!platform.serverless) return;
  const missing = [
    ["GATEWAY_SECRET_KEY", settings.secretKey],
    ["GATEWAY_ADMIN_TOKEN", settings.adminToken],
  ].filter(([, value]) => !value).map(([name]) => name);
  if (missing.length) {
    throw new Error(
      `${missing.join(" and ")} must be set in the environment when the gateway runs ` +
        `${platform.reason}: it writes no key file beside a platform KV and cannot show a ` +
        "generated admin token. GATEWAY_SECRET_KEY is base64 of 32 random bytes " +
        "(openssl rand -base64 32); see docs/deploy.md",
    );
  }
  if (target.kind === "file") {
    throw new Error(
      `GATEWAY_KV names a file (${target.path}), which the gateway does not use ${platform.reason}: ` +
        "leave GATEWAY_KV unset for the platform's KV, or set a KV Connect URL, a PostgreSQL URL " +
        "or :memory:",
    );
  }
}

async function openKv(target: KvTarget, settings: Settings): Promise<KvBackend> {
  switch (target.kind) {
    case "postgres":
      return await openPostgresKv(target.url, {
        poolSize: settings.pgPoolSize,
        statementTimeoutMs: settings.pgStatementTimeoutMs,
      });
    case "platform":
      return await Deno.openKv();
    case "memory":
      return await Deno.openKv(":memory:");
    case "remote":
      return await Deno.openKv(target.url);
    case "file": {
      const directory = target.path.replace(/[^/]*$/, "");
      if (directory) await Deno.mkdir(directory, { recursive: true });
      return await Deno.openKv(target.path);
    }
  }
}

/** Writes the config file's records, each an audited change by `config:<file>` (if it changed). */
async function applyConfig(
  gateway: Gateway,
  { config, file }: { config: ParsedConfig; file: string },
): Promise<void> {
  const change = { actor: `config:${file}` as const, method: "PUT", skipUnchanged: true };
  for (const [id, model] of Object.entries(config.models)) {
    await auditedChange(gateway.audit, {
      ...change,
      route: "config:models",
      target: { kind: "model", id },
      readTarget: (modelId) => gateway.registry.getModel(modelId),
      apply: () => gateway.registry.putModel(id, model, "config"),
    });
  }
  for (const channel of config.channels) {
    await auditedChange(gateway.audit, {
      ...change,
      route: "config:channels",
      target: { kind: "channel", id: channel.id },
      readTarget: async (channelId) =>
        gateway.registry.channelView(await gateway.registry.getChannel(channelId)),
      apply: () =>
        gateway.registry.createChannel(channel.input, { id: channel.id, source: "config" }),
    });
  }
  for (const webhook of config.webhooks) {
    await auditedChange(gateway.audit, {
      ...change,
      route: "config:webhooks",
      target: { kind: "webhook", id: webhook.id },
      readTarget: (webhookId) => gateway.webhooks.get(webhookId),
      apply: () =>
        gateway.webhooks.endpoints.create(webhook.input, {
          id: webhook.id,
          source: "config",
          secret: webhook.secret,
        }),
    });
  }
}

/** Starts the gateway with `settings`; used by main and by the tests. */
export async function startGateway(
  settings: Settings,
  options: {
    quiet?: boolean;
    platform?: Platform;
    crons?: boolean;
    /** Name resolution of the webhook SSRF guard (tests give their own; default: DNS). */
    webhookResolve?: Resolver;
    /**
     * The clock of breaker cooldowns, automatic disabling and recovery probes (tests drive it;
     * default Date.now).
     */
    now?: () => number;
  } = {},
): Promise<RunningGateway> {
  const platform = options.platform ??
    detectPlatform((name) => Deno.env.get(name), { ffprobePath: settings.ffprobePath });
  const target = kvTarget(settings.kvLocation, platform);
  checkServerless(settings, platform, target);
  // KV queues exist on a local KV only; on Deploy, KV Connect and PostgreSQL the due index (and
  // its poll or cron) drives every task.
  const queues = !platform.serverless && (target.kind === "file" || target.kind === "memory");
  const log = options.quiet
    ? undefined
    : (line: Record<string, unknown>) => console.log(JSON.stringify(line));
  const config = settings.configPath
    ? await readConfigFile(settings.configPath, (name) => Deno.env.get(name))
    : undefined;
  const counted: { metrics?: Metrics } = {};
  const openedKv = await openKv(target, settings);
  const kv = settings.countKvOperations
    ? countingKv(openedKv, (op) => counted.metrics?.add("gateway_kv_operations_total", { op }))
    : openedKv;
  const box = await loadSecretBox(
    target.kind === "file"
      ? target.path
      : target.kind === "remote" || target.kind === "postgres"
      ? target.url
      : ":memory:",
    settings.secretKey,
  );
  const gateway = new Gateway(
    kv,
    box,
    optionsFromSettings(settings, {
      server: config?.server,
      platform,
      taskQueue: queues,
      remoteStore: target.kind !== "file" && target.kind !== "memory",
      log,
      metricsTokenHash: settings.metricsToken ? await sha256Hex(settings.metricsToken) : undefined,
      webhookResolve: options.webhookResolve,
      now: options.now,
    }),
  );
  counted.metrics = gateway.metrics;
  await buildTimeIndexes(kv);
  const upgraded = await upgradeToAccounts(kv);
  if (upgraded) log?.({ msg: "upgraded keys to accounts", keys: upgraded });
  await gateway.registry.start();
  await gateway.groups.start();
  await gateway.captures.start();
  if (config) await applyConfig(gateway, { config, file: settings.configPath! });

  const admin = await loadAdminToken(kv, settings.adminToken);
  if (admin.generated) {
    console.log(JSON.stringify({
      msg: "admin token generated; it is shown only this once, store it now",
      admin_token: admin.generated,
    }));
  }

  await gateway.instance.start();
  const worker = new TaskWorker(gateway, { image: IMAGE_TASKS, video: VIDEO_TASKS }, {
    leaseMs: settings.taskLeaseMs,
    pollMs: settings.taskPollMs,
    concurrency: TASK_CONCURRENCY,
    useQueue: queues,
  });
  const sweeps = gatewaySweeps(gateway, worker, { instanceLeaseMs: settings.instanceLeaseMs });
  const sweepLoop = new SweepLoop(sweeps, { track: (work) => gateway.track(work) });
  await sweepLoop.runNow("orphaned-holds");
  sweepLoop.start();
  gateway.tasks.wake = () => worker.wake();

  let ready = false;
  const app = createApp(gateway, admin.hash, () => ready);
  const server = Deno.serve({
    port: settings.port,
    hostname: settings.host,
    onListen: () => {},
  }, app.fetch);
  const port = server.addr.port;
  ready = true;
  worker.start();
  gateway.webhooks.worker.start();
  log?.({
    msg: "platform",
    serverless: platform.serverless,
    reason: platform.reason,
    kv: target.kind,
    queues,
    crons: options.crons ?? false,
  });
  // Says which duration reader this process uses (ffprobe or in process) at boot.
  if (log) gateway.durations.reader().catch(() => {});
  log?.({ msg: "listening", host: settings.host, port });

  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    stopping ??= (async () => {
      ready = false;
      const deadline = Date.now() + settings.shutdownMs;
      // Requests may take all but the last fifth: that is kept for writing what they cost.
      const requestsDeadline = deadline - settings.shutdownMs * SHUTDOWN_WRITE_SHARE;
      // Each step gets what is left of its deadline; a step still running then is left behind.
      const step = async (
        name: string,
        work: () => Promise<unknown> | unknown,
        until = deadline,
      ) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<"late">((resolve) =>
          timer = setTimeout(() => resolve("late"), Math.max(0, until - Date.now()))
        );
        const done = Promise.resolve().then(work).then(
          () => "done" as const,
          () => "done" as const,
        );
        const outcome = await Promise.race([done, late]);
        clearTimeout(timer);
        if (outcome === "late") log?.({ msg: "shutdown deadline passed", step: name });
        return outcome;
      };
      const sweepsStopped = sweepLoop.stop();
      if (await step("requests", () => server.shutdown(), requestsDeadline) === "late") {
        // Streams still open are ended and billed for what they delivered.
        const cut = cutOpenStreams();
        if (cut) log?.({ msg: "streams ended at the shutdown deadline", streams: cut });
      }
      await step("task worker", () => worker.stop());
      await step("webhook worker", () => gateway.webhooks.worker.stop());
      await step("sweeps", () => sweepsStopped);
      const drained = await step("charges", () => gateway.drain());
      if (drained === "late") {
        const unwritten = gateway.ledger.budgets.unwritten();
        if (unwritten.units) log?.({ msg: "charges left unwritten at shutdown", ...unwritten });
      }
      await step("instance lease", () => gateway.instance.stop());
      gateway.registry.stop();
      gateway.groups.stop();
      gateway.captures.stop();
      // A PostgreSQL pool closes its connections asynchronously: wait for them, within the
      // deadline. A store already closed, or gone, has nothing more to do at exit.
      await step("store", async () => {
        if (openedKv instanceof PostgresKv) await openedKv.end();
        else kv.close();
      });
    })();

  const host = settings.host === "0.0.0.0"
    ? "127.0.0.1"
    : settings.host === "::"
    ? "[::1]"
    : settings.host.includes(":")
    ? `[${settings.host}]`
    : settings.host;
  return { url: `http://${host}:${port}`, port, gateway, platform, sweeps, shutdown };
}

if (import.meta.main) {
  const env = (name: string) => Deno.env.get(name);
  let settings: Settings;
  let platform: Platform;
  try {
    settings = readSettings(env);
    platform = detectPlatform(env, { ffprobePath: settings.ffprobePath });
  } catch (error) {
    console.error(`Gateway failed to start: ${(error as Error).message}`);
    Deno.exit(1);
  }
  let started!: (running: RunningGateway) => void;
  const up = new Promise<RunningGateway>((resolve) => started = resolve);
  // Deploy finds crons by evaluating this module's top level: they are registered before any
  // await, and run the sweeps once the gateway is up.
  const crons = platform.serverless && registerCrons(() => up.then((running) => running.sweeps));
  if (platform.serverless && !crons) {
    console.error(JSON.stringify({
      msg: 'Deno.cron is not available ("cron" in deno.json\'s "unstable"): due tasks and ' +
        "sweeps run only while an instance is up",
    }));
  }
  let running: RunningGateway;
  try {
    running = await startGateway(settings, { platform, crons });
  } catch (error) {
    console.error(`Gateway failed to start: ${(error as Error).message}`);
    Deno.exit(1);
  }
  started(running);
  const stop = async (signal: string) => {
    console.log(JSON.stringify({ msg: "shutting down", signal }));
    await running.shutdown();
    console.log(JSON.stringify({ msg: "stopped" }));
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
}
