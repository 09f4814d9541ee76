/** Process settings from the environment (design.md §1). */

import { trustedProxiesOf, trustProxyHopsOf } from "./util/client_address.ts";
import {
  currencyProblem,
  decimalsProblem,
  DEFAULT_MONEY_FORMAT,
  type MoneyFormat,
} from "./util/money_format.ts";

export interface Settings {
  port: number;
  host: string;
  /**
   * GATEWAY_KV: a file path, `:memory:`, a KV Connect URL or a PostgreSQL URL (`postgres://…`);
   * unset: DEFAULT_KV_PATH, or on Deno Deploy the platform's KV (main.ts, kvTarget).
   */
  kvLocation: string | undefined;
  /** GATEWAY_PG_POOL: connections each instance keeps to PostgreSQL. */
  pgPoolSize: number;
  /** GATEWAY_PG_STATEMENT_TIMEOUT_MS: the deadline of each PostgreSQL statement. */
  pgStatementTimeoutMs: number;
  adminToken?: string;
  configPath?: string;
  publicUrl?: string;
  ffprobePath: string;
  /** AES key (base64, 32 bytes) that encrypts upstream secrets in KV. */
  secretKey?: string;
  /** Print one JSON line per request on stdout. */
  logRequests: boolean;
  /** Count KV operations in /metrics (`gateway_kv_operations_total`), for the bench. */
  countKvOperations: boolean;
  mediaTtlMs: number;
  mediaFetchHosts: string[];
  /** How long a task worker's claim lasts without renewal. */
  taskLeaseMs: number;
  /** Poll interval of the task worker's due index. */
  taskPollMs: number;
  /** First and longest wait between two polls of an upstream video task. */
  videoPollMinMs: number;
  videoPollMaxMs: number;
  /** A video task not finished this long after submission fails and is refunded. */
  videoTimeoutMs: number;
  /** How long a process's instance lease lasts without renewal (a dead one's holds wait this). */
  instanceLeaseMs: number;
  /** Longest pause between two chunks of a request body. */
  clientIdleMs: number;
  /** GATEWAY_STORE_DEADLINE_MS: the longest wait for one call to a remote store (then 503). */
  storeDeadlineMs: number;
  /**
   * GATEWAY_STORE_GRACE_MS: how long after the store last answered a process still serves from
   * the budget it already leased (docs/operations.md, "Store outages").
   */
  storeGraceMs: number;
  /** GATEWAY_SHUTDOWN_MS: the longest a graceful stop (SIGTERM) drains before it exits. */
  shutdownMs: number;
  /** GATEWAY_TRUST_PROXY: proxies in front whose `x-forwarded-for` is believed from any peer. */
  trustProxyHops: number;
  /** GATEWAY_TRUSTED_PROXIES: ranges of proxies whose `x-forwarded-for` is believed. */
  trustedProxies: string[];
  /** A bearer token /metrics requires, when set. */
  metricsToken?: string;
  /** The largest non-stream answer read from a text upstream. */
  upstreamTextMaxBytes: number;
  /** The largest answer read from an image (or video-task) upstream. */
  upstreamMediaMaxBytes: number;
  /** The largest event of an upstream text stream; a larger one breaks the stream. */
  upstreamEventMaxBytes: number;
  /** GATEWAY_WEBHOOK_ALLOW_PRIVATE=1: webhooks may go to private and loopback addresses. */
  webhookAllowPrivate: boolean;
  /** One webhook attempt's timeout. */
  webhookTimeoutMs: number;
  /** The wait after a webhook's first failed attempt; each later one is 5 times longer. */
  webhookRetryBaseMs: number;
  /** Attempts of one webhook delivery before it fails. */
  webhookMaxAttempts: number;
  /** GATEWAY_SMTP_URL: `smtp://user:pass@host:port` of the server that sends members' mail. */
  smtpUrl?: string;
  /** GATEWAY_MAIL_FROM: the sender of members' mail (`Gateway <noreply@example.com>`). */
  mailFrom?: string;
  /** GATEWAY_SIGNUP=1: self sign-up with an invite code (off by default). */
  signup: boolean;
  /** GATEWAY_SIGNUP_GROUP: the group of accounts made by self sign-up (default `default`). */
  signupGroup: string;
  /** GATEWAY_CURRENCY, GATEWAY_MONEY_DECIMALS: the console's money format until one is set. */
  moneyFormat: MoneyFormat;
}

const MIB = 1024 * 1024;

/** Where KV lives when GATEWAY_KV is unset, off Deno Deploy. */
export const DEFAULT_KV_PATH = "./data/gateway.kv";

function positiveNumber(get: (name: string) => string | undefined, name: string, fallback: number) {
  const raw = get(name);
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number, got '${raw}'`);
  }
  return value;
}

/** Reads settings from an environment getter (Deno.env.get in production). */
export function readSettings(get: (name: string) => string | undefined): Settings {
  const port = Number(get("PORT") ?? "8080");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got '${get("PORT")}'`);
  }
  const trustProxyHops = trustProxyHopsOf(get("GATEWAY_TRUST_PROXY"));
  const trustedProxies = trustedProxiesOf(get("GATEWAY_TRUSTED_PROXIES"));
  if (trustProxyHops > 0 && trustedProxies.length > 0) {
    throw new Error(
      "Set GATEWAY_TRUSTED_PROXIES or GATEWAY_TRUST_PROXY, not both: GATEWAY_TRUSTED_PROXIES " +
        "believes x-forwarded-for only from the proxies it lists, GATEWAY_TRUST_PROXY from any peer",
    );
  }
  return {
    port,
    host: get("HOST") ?? "0.0.0.0",
    kvLocation: get("GATEWAY_KV") || undefined,
    pgPoolSize: Math.floor(positiveNumber(get, "GATEWAY_PG_POOL", 10)),
    pgStatementTimeoutMs: positiveNumber(get, "GATEWAY_PG_STATEMENT_TIMEOUT_MS", 10_000),
    adminToken: get("GATEWAY_ADMIN_TOKEN") || undefined,
    configPath: get("GATEWAY_CONFIG") || undefined,
    publicUrl: get("GATEWAY_PUBLIC_URL")?.replace(/\/+$/, "") || undefined,
    ffprobePath: get("FFPROBE_PATH") ?? "ffprobe",
    secretKey: get("GATEWAY_SECRET_KEY") || undefined,
    logRequests: get("GATEWAY_LOG_REQUESTS") !== "0",
    countKvOperations: get("GATEWAY_KV_COUNT_OPS") === "1",
    mediaTtlMs: positiveNumber(get, "GATEWAY_MEDIA_TTL_HOURS", 24) * 3_600_000,
    mediaFetchHosts: (get("GATEWAY_MEDIA_FETCH_HOSTS") ?? "").split(",").map((host) => host.trim())
      .filter(Boolean),
    taskLeaseMs: positiveNumber(get, "GATEWAY_TASK_LEASE_MS", 60_000),
    taskPollMs: positiveNumber(get, "GATEWAY_TASK_POLL_MS", 1_000),
    videoPollMinMs: positiveNumber(get, "GATEWAY_VIDEO_POLL_MIN_MS", 5_000),
    videoPollMaxMs: positiveNumber(get, "GATEWAY_VIDEO_POLL_MAX_MS", 30_000),
    videoTimeoutMs: positiveNumber(get, "GATEWAY_VIDEO_TIMEOUT_MINUTES", 60) * 60_000,
    metricsToken: get("GATEWAY_METRICS_TOKEN") || undefined,
    trustProxyHops,
    trustedProxies,
    clientIdleMs: positiveNumber(get, "GATEWAY_CLIENT_IDLE_MS", 30_000),
    storeDeadlineMs: positiveNumber(get, "GATEWAY_STORE_DEADLINE_MS", 2_000),
    storeGraceMs: positiveNumber(get, "GATEWAY_STORE_GRACE_MS", 30_000),
    shutdownMs: positiveNumber(get, "GATEWAY_SHUTDOWN_MS", 10_000),
    instanceLeaseMs: positiveNumber(get, "GATEWAY_INSTANCE_LEASE_MS", 60_000),
    upstreamTextMaxBytes: positiveNumber(get, "GATEWAY_UPSTREAM_TEXT_MAX_MB", 16) * MIB,
    upstreamMediaMaxBytes: positiveNumber(get, "GATEWAY_UPSTREAM_MEDIA_MAX_MB", 32) * MIB,
    upstreamEventMaxBytes: Math.ceil(
      positiveNumber(get, "GATEWAY_UPSTREAM_EVENT_MAX_MB", 8) * MIB,
    ),
    webhookAllowPrivate: get("GATEWAY_WEBHOOK_ALLOW_PRIVATE") === "1",
    webhookTimeoutMs: positiveNumber(get, "GATEWAY_WEBHOOK_TIMEOUT_MS", 10_000),
    webhookRetryBaseMs: positiveNumber(get, "GATEWAY_WEBHOOK_RETRY_BASE_MS", 5_000),
    webhookMaxAttempts: Math.floor(positiveNumber(get, "GATEWAY_WEBHOOK_MAX_ATTEMPTS", 8)),
    smtpUrl: smtpUrlOf(get("GATEWAY_SMTP_URL")),
    mailFrom: get("GATEWAY_MAIL_FROM") || undefined,
    signup: get("GATEWAY_SIGNUP") === "1" || get("GATEWAY_SIGNUP") === "true",
    signupGroup: get("GATEWAY_SIGNUP_GROUP") || "default",
    moneyFormat: moneyFormatOf(get("GATEWAY_CURRENCY"), get("GATEWAY_MONEY_DECIMALS")),
  };
}

function smtpUrlOf(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // refused below
  }
  if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname) {
    // The URL may carry a password: never echo it.
    throw new Error("GATEWAY_SMTP_URL must be smtp://user:pass@host:port or smtps://…");
  }
  return raw;
}

/** Whether the KV location names a PostgreSQL database (`postgres://` or `postgresql://`). */
export function isPostgresKv(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Whether the KV location names a remote KV Connect database. */
export function isRemoteKv(location: string): boolean {
  return /^https?:\/\//.test(location);
}

function moneyFormatOf(currency: string | undefined, decimals: string | undefined): MoneyFormat {
  const code = currency || DEFAULT_MONEY_FORMAT.currency;
  const currencyIssue = currencyProblem(code);
  if (currencyIssue) throw new Error(`GATEWAY_CURRENCY ${currencyIssue}`);
  const places = decimals ? Number(decimals) : DEFAULT_MONEY_FORMAT.decimals;
  const decimalsIssue = decimalsProblem(places);
  if (decimalsIssue) throw new Error(`GATEWAY_MONEY_DECIMALS ${decimalsIssue}`);
  return { currency: code, decimals: places };
}
