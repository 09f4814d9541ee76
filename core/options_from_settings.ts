/**
 * The gateway's options from the process settings (environment), the config file's `server`
 * block and what the boot found out (platform, KV queues). Pure: main.ts computes what needs I/O
 * (the metrics token's hash) and passes it in.
 */

import { DEFAULT_OPTIONS, type GatewayOptions } from "./gateway.ts";
import type { Settings } from "./settings.ts";
import type { ParsedConfig } from "./config_file.ts";
import type { Platform } from "./platform.ts";
import type { Resolver } from "./webhooks/public_address.ts";

/** The webhook worker polls no more often than this, however fast the task worker polls. */
export const WEBHOOK_MIN_POLL_MS = 250;

const DAY_MS = 86_400_000;

/** What the boot knows beside the settings. */
export interface BootFacts {
  /** The config file's `server` block, when there is a config file. */
  server?: ParsedConfig["server"];
  platform: Pick<Platform, "runFfprobe" | "tempFiles">;
  /** Whether KV queues exist here (a local KV, off Deno Deploy). */
  taskQueue: boolean;
  /** Whether the store is reached over a network (its calls then get a deadline). */
  remoteStore?: boolean;
  /** Where informational lines go; none when quiet. */
  log?: (line: Record<string, unknown>) => void;
  /** SHA-256 (hex) of GATEWAY_METRICS_TOKEN, when it is set. */
  metricsTokenHash?: string;
  /** Name resolution of the webhook SSRF guard (tests give their own; default: DNS). */
  webhookResolve?: Resolver;
  /** The clock of automatic disabling and recovery probes (tests drive it). */
  now?: () => number;
}

export function optionsFromSettings(settings: Settings, boot: BootFacts): GatewayOptions {
  const { server } = boot;
  return {
    ...DEFAULT_OPTIONS,
    maxBodyBytes: server?.max_body_bytes ?? DEFAULT_OPTIONS.maxBodyBytes,
    maxRetries: server?.max_retries ?? DEFAULT_OPTIONS.maxRetries,
    requestLogRetentionMs: server?.request_log_retention_days
      ? server.request_log_retention_days * DAY_MS
      : undefined,
    auditRetentionMs: server?.audit_retention_days
      ? server.audit_retention_days * DAY_MS
      : undefined,
    logRequestsToStdout: settings.logRequests,
    publicUrl: settings.publicUrl,
    mediaTtlMs: settings.mediaTtlMs,
    mediaFetchHosts: settings.mediaFetchHosts,
    taskQueue: boot.taskQueue,
    ffprobePath: settings.ffprobePath,
    runFfprobe: boot.platform.runFfprobe,
    tempFiles: boot.platform.tempFiles,
    log: boot.log,
    configFile: settings.configPath,
    clientIdleMs: settings.clientIdleMs,
    trustProxyHops: settings.trustProxyHops,
    trustedProxies: settings.trustedProxies,
    instanceLeaseMs: settings.instanceLeaseMs,
    store: {
      deadlineMs: settings.storeDeadlineMs,
      graceMs: settings.storeGraceMs,
      timed: boot.remoteStore ?? false,
    },
    metricsTokenHash: boot.metricsTokenHash,
    ...(boot.now && { now: boot.now }),
    upstreamMaxBytes: {
      text: settings.upstreamTextMaxBytes,
      media: settings.upstreamMediaMaxBytes,
      event: settings.upstreamEventMaxBytes,
    },
    video: {
      pollMinMs: settings.videoPollMinMs,
      pollMaxMs: settings.videoPollMaxMs,
      timeoutMs: settings.videoTimeoutMs,
    },
    members: {
      smtpUrl: settings.smtpUrl,
      mailFrom: settings.mailFrom,
      signup: settings.signup,
      signupGroup: settings.signupGroup,
    },
    moneyFormat: settings.moneyFormat,
    webhooks: {
      allowPrivate: settings.webhookAllowPrivate,
      timeoutMs: settings.webhookTimeoutMs,
      retryBaseMs: settings.webhookRetryBaseMs,
      maxAttempts: settings.webhookMaxAttempts,
      // Its own tasks' ends wake it at once; the poll finds other instances' work and due retries.
      pollMs: Math.max(settings.taskPollMs, WEBHOOK_MIN_POLL_MS),
      resolve: boot.webhookResolve,
    },
  };
}
