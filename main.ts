/** Boot: settings → KV → config → app → Deno.serve; graceful shutdown on SIGINT/SIGTERM. */

import { createApp } from "./app.ts";
import { loadAdminToken } from "./core/keys/admin_token.ts";
import { type ParsedConfig, readConfigFile } from "./core/config_file.ts";
import { DEFAULT_OPTIONS, Gateway } from "./core/gateway.ts";
import { loadSecretBox } from "./core/channels/secret_box.ts";
import { isRemoteKv, readSettings, type Settings } from "./core/settings.ts";
import { sha256Hex } from "./core/util/ids.ts";
import { buildTimeIndexes } from "./core/kv/time_indexes.ts";
import { isInstanceAlive } from "./core/kv/instance_lease.ts";
import { IMAGE_TASKS } from "./workers/image_task.ts";
import { VIDEO_TASKS } from "./workers/video_task.ts";
import { TaskWorker } from "./workers/task_worker.ts";

/** Holds without an instance id (written before there were any) are released after this long. */
export const STALE_HOLD_MS = 60 * 60 * 1000;
const SHUTDOWN_GRACE_MS = 30_000;
/** Tasks one process runs at once; image tasks are mostly waiting on the upstream. */
const TASK_CONCURRENCY = 64;

export interface RunningGateway {
  url: string;
  port: number;
  gateway: Gateway;
  /** Stops accepting, lets in-flight requests finish, settles, flushes logs, closes KV. */
  shutdown(): Promise<void>;
}

async function openKv(location: string): Promise<Deno.Kv> {
  if (location !== ":memory:" && !isRemoteKv(location)) {
    const directory = location.replace(/[^/]*$/, "");
    if (directory) await Deno.mkdir(directory, { recursive: true });
  }
  return await Deno.openKv(location);
}

async function applyConfig(gateway: Gateway, config: ParsedConfig): Promise<void> {
  for (const [id, model] of Object.entries(config.models)) {
    await gateway.registry.putModel(id, model, "config");
  }
  for (const channel of config.channels) {
    await gateway.registry.createChannel(channel.input, { id: channel.id, source: "config" });
  }
}

/** Starts the gateway with `settings`; used by main and by the tests. */
export async function startGateway(
  settings: Settings,
  options: { quiet?: boolean } = {},
): Promise<RunningGateway> {
  const config = settings.configPath
    ? await readConfigFile(settings.configPath, (name) => Deno.env.get(name))
    : undefined;
  const kv = await openKv(settings.kvLocation);
  const box = await loadSecretBox(settings.kvLocation, settings.secretKey);
  const gateway = new Gateway(kv, box, {
    ...DEFAULT_OPTIONS,
    maxBodyBytes: config?.server.max_body_bytes ?? DEFAULT_OPTIONS.maxBodyBytes,
    maxRetries: config?.server.max_retries ?? DEFAULT_OPTIONS.maxRetries,
    requestLogRetentionMs: config?.server.request_log_retention_days
      ? config.server.request_log_retention_days * 86_400_000
      : undefined,
    logRequestsToStdout: settings.logRequests,
    publicUrl: settings.publicUrl,
    mediaTtlMs: settings.mediaTtlMs,
    mediaFetchHosts: settings.mediaFetchHosts,
    taskQueue: !isRemoteKv(settings.kvLocation),
    ffprobePath: settings.ffprobePath,
    configFile: settings.configPath,
    clientIdleMs: settings.clientIdleMs,
    instanceLeaseMs: settings.instanceLeaseMs,
    metricsTokenHash: settings.metricsToken ? await sha256Hex(settings.metricsToken) : undefined,
    upstreamMaxBytes: {
      text: settings.upstreamTextMaxBytes,
      media: settings.upstreamMediaMaxBytes,
    },
    video: {
      pollMinMs: settings.videoPollMinMs,
      pollMaxMs: settings.videoPollMaxMs,
      timeoutMs: settings.videoTimeoutMs,
    },
  });
  await buildTimeIndexes(kv);
  await gateway.registry.start();
  if (config) await applyConfig(gateway, config);

  const admin = await loadAdminToken(kv, settings.adminToken);
  if (admin.generated) {
    console.log(JSON.stringify({
      msg: "admin token generated; it is shown only this once, store it now",
      admin_token: admin.generated,
    }));
  }

  await gateway.instance.start();
  // Every instance sweeps, every half lease: a dead process's holds are released within 1.5
  // leases of its death, exactly once (the ledger releases a hold once, whoever asks).
  const sweepOrphanedHolds = () =>
    gateway.track(gateway.ledger.releaseOrphanedHolds({
      isAlive: (id) => isInstanceAlive(kv, id),
      maxAgeMs: STALE_HOLD_MS,
    })).catch((error) =>
      console.error(JSON.stringify({ msg: "orphaned hold sweep failed", error: String(error) }))
    );
  await sweepOrphanedHolds();
  const sweeper = setInterval(sweepOrphanedHolds, settings.instanceLeaseMs / 2);

  const worker = new TaskWorker(gateway, { image: IMAGE_TASKS, video: VIDEO_TASKS }, {
    leaseMs: settings.taskLeaseMs,
    pollMs: settings.taskPollMs,
    concurrency: TASK_CONCURRENCY,
    useQueue: !isRemoteKv(settings.kvLocation),
  });
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
  if (!options.quiet) console.log(JSON.stringify({ msg: "listening", host: settings.host, port }));

  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    stopping ??= (async () => {
      ready = false;
      clearInterval(sweeper);
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        server.shutdown(),
        new Promise((resolve) => graceTimer = setTimeout(resolve, SHUTDOWN_GRACE_MS)),
      ]);
      clearTimeout(graceTimer);
      await worker.stop();
      await gateway.drain();
      await gateway.instance.stop();
      gateway.registry.stop();
      kv.close();
    })();

  const host = settings.host === "0.0.0.0" ? "127.0.0.1" : settings.host;
  return { url: `http://${host}:${port}`, port, gateway, shutdown };
}

if (import.meta.main) {
  const settings = readSettings((name) => Deno.env.get(name));
  let running: RunningGateway;
  try {
    running = await startGateway(settings);
  } catch (error) {
    console.error(`Gateway failed to start: ${(error as Error).message}`);
    Deno.exit(1);
  }
  const stop = async (signal: string) => {
    console.log(JSON.stringify({ msg: "shutting down", signal }));
    await running.shutdown();
    console.log(JSON.stringify({ msg: "stopped" }));
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
}
