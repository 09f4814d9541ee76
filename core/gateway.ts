/** The gateway's domain services, built once at boot and passed to routes and workers. */

import { AccountStore } from "./accounts/account_store.ts";
import { KeyStore } from "./keys/key_store.ts";
import { RedemptionStore } from "./accounts/redemption_store.ts";
import { RedemptionCodes } from "./accounts/redemption_codes.ts";
import { GroupStore } from "./accounts/group_store.ts";
import { groupOf } from "./accounts/group_of.ts";
import type { PriceTier } from "./billing/price_tier.ts";
import { InstanceLease } from "./kv/instance_lease.ts";
import { Ledger } from "./billing/ledger.ts";
import { MediaStore } from "./media/media_store.ts";
import { DurationReaders } from "./media/media_duration.ts";
import { Metrics } from "./telemetry/metrics.ts";
import { RateLimiter } from "./keys/rate_limit.ts";
import { CHANNEL_RULES } from "./providers/provider_table.ts";
import { Registry } from "./channels/registry.ts";
import { BreakerBoard } from "./channels/breaker_board.ts";
import { type AttemptRecord, RequestLog } from "./telemetry/request_log.ts";
import type { FailoverOptions } from "./upstream/failover.ts";
import { ChannelHealth } from "./telemetry/channel_health.ts";
import { BodyCaptures } from "./telemetry/body_capture.ts";
import type { SecretBox } from "./channels/secret_box.ts";
import { TaskStore } from "./tasks/task_store.ts";
import { AuditLog } from "./audit/audit_log.ts";
import { ConsoleSessionStore } from "./console/session_store.ts";
import { EndpointStore } from "./webhooks/endpoint_store.ts";
import {
  DeliveryStore,
  writeChannelOutboxEvent,
  writeOutboxEvent,
} from "./webhooks/delivery_store.ts";
import { AutoDisabler } from "./channels/auto_disabler.ts";
import { channelEventPayload } from "./webhooks/channel_event.ts";
import { DeliveryWorker } from "./webhooks/delivery_worker.ts";
import { Webhooks } from "./webhooks/webhook_service.ts";
import { GATEWAY_NAME, GATEWAY_VERSION } from "./version.ts";
import type { Resolver } from "./webhooks/public_address.ts";
import type { KvBackend } from "./kv/kv_backend.ts";
import { Members } from "./members/members_service.ts";
import { createMailer } from "./members/mailer.ts";
import { MoneyFormatStore } from "./console/money_format.ts";
import { DEFAULT_MONEY_FORMAT, type MoneyFormat } from "./util/money_format.ts";
import { StoreHealth } from "./kv/store_health.ts";
import { deadlineKv } from "./kv/deadline_kv.ts";
import { type ProbeResult, StoreProbe } from "./kv/store_probe.ts";

export interface GatewayOptions {
  /** Retries on other channels after a failure before the first byte. */
  maxRetries: number;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  requestLogRetentionMs?: number;
  /** How long audit records are kept (default 365 days). */
  auditRetentionMs?: number;
  logRequestsToStdout: boolean;
  publicUrl?: string;
  /** How long hosted media (image results, stored task inputs) lives. */
  mediaTtlMs: number;
  /** Hosts besides a channel's own that URL results may be fetched from. */
  mediaFetchHosts: string[];
  /** Whether KV queues exist here (not on KV Connect): task submissions enqueue a wake-up. */
  taskQueue: boolean;
  /** The ffprobe binary that reads reference media durations. */
  ffprobePath: string;
  /** ffprobe may be started here (else durations are read in process; see media_duration.ts). */
  runFfprobe: boolean;
  /** Temp files may be written here: uploads go to disk, else they are held in memory. */
  tempFiles: boolean;
  /** Where one-off informational lines go (which duration reader is used); none when quiet. */
  log?: (line: Record<string, unknown>) => void;
  /** The config file applied at boot, if any: the records it manages refuse admin changes. */
  configFile?: string;
  /** SHA-256 (hex) of GATEWAY_METRICS_TOKEN: when set, /metrics needs it as a bearer token. */
  metricsTokenHash?: string;
  /** How long this process's instance lease lasts without renewal. */
  instanceLeaseMs: number;
  /** The store's deadlines and the outage rules (docs/operations.md, "Store outages"). */
  store: StoreOptions;
  /** Longest pause allowed between two chunks of a client's request body (then 408). */
  clientIdleMs: number;
  /**
   * Whose `x-forwarded-for` names the client (core/util/client_address.ts): any peer's, this
   * many proxies deep (GATEWAY_TRUST_PROXY), or only these ranges' (GATEWAY_TRUSTED_PROXIES).
   */
  trustProxyHops: number;
  trustedProxies: string[];
  /**
   * Largest non-stream answers read from upstreams (text, and images or video tasks), and the
   * largest event of an upstream text stream.
   */
  upstreamMaxBytes: { text: number; media: number; event: number };
  video: VideoOptions;
  webhooks: WebhookOptions;
  members: MemberOptions;
  /** The console's money format until an operator sets one (GATEWAY_CURRENCY, …_DECIMALS). */
  moneyFormat: MoneyFormat;
  /**
   * The clock of the timing rules tests drive (breaker cooldowns, automatic disabling, recovery
   * probes); Date.now.
   */
  now?: () => number;
}

export interface StoreOptions {
  /** The longest wait for one store call; then 503 `store_unavailable`. */
  deadlineMs: number;
  /** How long after the store last answered billable requests are still served from leases. */
  graceMs: number;
  /**
   * Whether each store call is raced against `deadlineMs` (a store reached over a network; the
   * embedded KV answers or fails by itself). /readyz's probe has the deadline either way.
   */
  timed: boolean;
}

export interface WebhookOptions {
  /** Private and loopback receivers allowed (GATEWAY_WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivate: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  /** How often the webhook worker looks for work when nothing wakes it. */
  pollMs: number;
  /** Name resolution of the SSRF guard; the attempt connects to what it answered (default: DNS). */
  resolve?: Resolver;
}

export interface MemberOptions {
  /** SMTP server of invitation and reset mail; without it (or `mailFrom`) links are shown. */
  smtpUrl?: string;
  mailFrom?: string;
  /** Self sign-up with an invite code. */
  signup: boolean;
  /** The group of accounts self sign-up makes. */
  signupGroup: string;
}

export interface VideoOptions {
  /** Wait before the first poll of an upstream task; each later wait is 1.5 times longer… */
  pollMinMs: number;
  /** …up to this. */
  pollMaxMs: number;
  /** A task not finished this long after submission fails and is refunded. */
  timeoutMs: number;
}

export const DEFAULT_OPTIONS: GatewayOptions = {
  maxRetries: 2,
  maxBodyBytes: 32 * 1024 * 1024,
  logRequestsToStdout: true,
  mediaTtlMs: 24 * 3600 * 1000,
  mediaFetchHosts: [],
  taskQueue: false,
  ffprobePath: "ffprobe",
  runFfprobe: true,
  tempFiles: true,
  upstreamMaxBytes: { text: 16 * 1024 * 1024, media: 32 * 1024 * 1024, event: 8 * 1024 * 1024 },
  clientIdleMs: 30_000,
  trustProxyHops: 0,
  trustedProxies: [],
  instanceLeaseMs: 60_000,
  store: { deadlineMs: 2_000, graceMs: 30_000, timed: false },
  video: { pollMinMs: 5_000, pollMaxMs: 30_000, timeoutMs: 3_600_000 },
  members: { signup: false, signupGroup: "default" },
  moneyFormat: DEFAULT_MONEY_FORMAT,
  webhooks: {
    allowPrivate: false,
    timeoutMs: 10_000,
    retryBaseMs: 5_000,
    maxAttempts: 8,
    pollMs: 1_000,
  },
};

/** Webhook attempts one process has in flight at once. */
const WEBHOOK_CONCURRENCY = 32;

/** Everything a route or worker needs; nothing here knows about HTTP frameworks. */
export class Gateway {
  readonly kv: KvBackend;
  readonly options: GatewayOptions;
  /** Whether the store answers, as this process last saw it (the outage rules read it). */
  readonly storeHealth = new StoreHealth();
  readonly #storeProbe: StoreProbe;
  readonly ledger: Ledger;
  /** This process's lease in KV: holds carry its id, so a dead process's holds are found. */
  readonly instance: InstanceLease;
  readonly keys: KeyStore;
  readonly accounts: AccountStore;
  readonly registry: Registry;
  /** Each channel's and upstream key's circuit breaker, shared across instances. */
  readonly breakers: BreakerBoard;
  readonly requestLog: RequestLog;
  /** Per-channel success, latency and last error, counted from the request log's attempts. */
  readonly channelHealth: ChannelHealth;
  /** Which keys' request and response bodies are captured (off unless switched on per key). */
  readonly captures: BodyCaptures;
  /** Who changed what: every admin change (API, config file, console). */
  readonly audit: AuditLog;
  /** Signed-in sessions of the web console (routes/console). */
  readonly consoleSessions: ConsoleSessionStore;
  /** The console's money format (currency, display precision). */
  readonly moneyFormat: MoneyFormatStore;
  /** People who sign in with an email and a password, their invitations and second factor. */
  readonly members: Members;
  readonly rateLimiter = new RateLimiter();
  readonly metrics = new Metrics();
  readonly media: MediaStore;
  /** Reads reference media durations: ffprobe where it can run, else in process. */
  readonly durations: DurationReaders;
  /** Every task read and write; `tasks.wake` is set by main once the worker runs. */
  readonly tasks: TaskStore;
  /** Webhook endpoints, deliveries and their worker (main starts and stops the worker). */
  readonly webhooks: Webhooks;
  /** Keys and channels the gateway disables on its own, and their recovery (core/channels). */
  readonly autoDisabler: AutoDisabler;
  /** Group records and their price multipliers, held in memory for pricing. */
  readonly groups: GroupStore;
  /** Redemption-code batches, their codes' states, and redeeming a code into a wallet. */
  readonly redemptions: RedemptionCodes;
  /** Work that must finish before shutdown: settles and releases after a response. */
  readonly #pending = new Set<Promise<unknown>>();

  constructor(store: KvBackend, box: SecretBox, options: GatewayOptions) {
    const { deadlineMs, timed } = options.store;
    const health = this.storeHealth;
    // The commits of money and of the request log (its costs and sums) are left to finish, so
    // that they land once (see deadline_kv.ts); every other call is raced.
    const kv = timed ? deadlineKv(store, { deadlineMs, health }) : store;
    const waitingKv = timed ? deadlineKv(store, { deadlineMs, health, commits: "wait" }) : store;
    this.kv = kv;
    this.options = options;
    this.instance = new InstanceLease(kv, { leaseMs: options.instanceLeaseMs });
    this.#storeProbe = new StoreProbe(kv, { instanceId: this.instance.id, deadlineMs });
    this.ledger = new Ledger(waitingKv, {
      instanceId: this.instance.id,
      outage: timed ? { health, deadlineMs, graceMs: options.store.graceMs } : undefined,
    });
    this.groups = new GroupStore(kv);
    this.redemptions = new RedemptionCodes(new RedemptionStore(kv), this.ledger);
    this.accounts = new AccountStore(kv, this.ledger);
    this.keys = new KeyStore(kv, this.ledger, {
      sealer: box,
      track: (work) => this.track(work),
      accounts: this.accounts,
    });
    this.registry = new Registry(kv, box, {
      rules: CHANNEL_RULES,
      configFile: options.configFile,
    });
    this.breakers = new BreakerBoard(kv, {
      now: options.now,
      instanceId: this.instance.id,
    });
    this.metrics.gauge(
      "gateway_channel_breaker_state",
      "A channel's breaker: 0 closed, 1 half-open, 2 open or set aside by a retry-after",
      () =>
        this.breakers.phases(this.registry.channels).map(({ channel, phase }) => ({
          labels: { channel },
          value: phase,
        })),
    );
    this.metrics.gauge(
      "gateway_channel_key_breakers_open",
      "A channel's upstream keys whose breaker is open, half-open or set aside",
      () =>
        this.breakers.phases(this.registry.channels).map(({ channel, keys }) => ({
          labels: { channel },
          value: keys,
        })),
    );
    this.media = new MediaStore(kv, options.mediaTtlMs);
    this.durations = new DurationReaders({
      ffprobePath: options.ffprobePath,
      runFfprobe: options.runFfprobe,
      tempFiles: options.tempFiles,
      log: options.log,
    });
    this.tasks = new TaskStore(kv, {
      ledger: this.ledger,
      limitOf: (keyId) => this.keys.get(keyId).catch(() => ({ unlimited: false, credit_limit: 0 })),
      queue: options.taskQueue,
      wake: () => {},
      onEnd: {
        write: (atomic, task) => writeOutboxEvent(atomic, task.id),
        committed: () => this.webhooks.worker.wake(),
      },
    });
    const endpoints = new EndpointStore(kv, box, {
      allowPrivate: options.webhooks.allowPrivate,
      configFile: options.configFile,
      hasKey: (keyId) => this.keys.get(keyId).then(() => true, () => false),
    });
    const deliveries = new DeliveryStore(kv);
    this.webhooks = new Webhooks(
      { endpoints, deliveries },
      new DeliveryWorker({
        kv,
        endpoints,
        deliveries,
        tasks: this.tasks,
        media: this.media,
        groupOf: (keyId) => this.keys.get(keyId).then((key) => key.group, () => null),
        countAttempt: (outcome) =>
          this.metrics.add("gateway_webhook_attempts_total", { outcome }, 1),
      }, {
        ...options.webhooks,
        concurrency: WEBHOOK_CONCURRENCY,
        userAgent: `${GATEWAY_NAME}-webhooks/${GATEWAY_VERSION}`,
      }),
    );
    this.captures = new BodyCaptures(kv);
    this.channelHealth = new ChannelHealth(kv, { instanceId: this.instance.id });
    this.audit = new AuditLog(kv, { retentionMs: options.auditRetentionMs });
    this.consoleSessions = new ConsoleSessionStore(kv);
    this.moneyFormat = new MoneyFormatStore(kv, options.moneyFormat);
    this.members = new Members(kv, box, {
      mailer: createMailer(options.members),
      signup: options.members.signup,
      track: (work) => this.track(work),
      accounts: {
        exists: (id) => this.accountExists(id),
        create: (name) => this.createSignupAccount(name),
        nameOf: async (id) => (await this.accounts.cached(id))?.name ?? null,
      },
    });
    this.autoDisabler = new AutoDisabler(kv, {
      now: options.now,
      audit: this.audit,
      reload: () => this.registry.reload(),
      track: (work) => this.track(work),
      writeEvent: (atomic, change) => writeChannelOutboxEvent(atomic, channelEventPayload(change)),
      committed: () => this.webhooks.worker.wake(),
    });
    this.requestLog = new RequestLog(waitingKv, {
      health: this.channelHealth,
      retentionMs: options.requestLogRetentionMs,
      stdout: options.logRequestsToStdout,
      onDrop: () => this.metrics.add("gateway_request_log_dropped_total", {}),
    });
  }

  /** Writes and reads a probe key within the store's deadline (/readyz). */
  probeStore(): Promise<ProbeResult> {
    return this.#storeProbe.probe();
  }

  /** Whether account `id` exists. */
  async accountExists(id: string): Promise<boolean> {
    return /^acct_[0-9A-Za-z]{1,64}$/.test(id) && (await this.accounts.cached(id)) !== null;
  }

  /** Makes the account of a self sign-up, in `options.members.signupGroup` with a zero balance. */
  async createSignupAccount(name: string): Promise<{ id: string }> {
    const account = await this.accounts.create({
      name,
      group: this.options.members.signupGroup,
      credit_limit: 0,
      unlimited: false,
      enabled: true,
      balance: 0,
    });
    return { id: account.id };
  }

  /** The price tier `key`'s requests are charged at (its group's multiplier; no KV read). */
  /**
   * How a request's upstream calls fail over: at most 1 + GATEWAY_MAX_RETRIES channels, past
   * the breakers, each attempt counted in the metrics, in `log` and by the auto-disabler.
   */
  failover(signal: AbortSignal, log?: AttemptRecord[]): FailoverOptions {
    return {
      maxAttempts: 1 + this.options.maxRetries,
      signal,
      metrics: this.metrics,
      log,
      breakers: this.breakers,
      observe: this.autoDisabler.observer,
    };
  }

  priceTierOf(key: { group: string }): PriceTier {
    return this.groups.tierOf(groupOf(key));
  }

  /** Keeps `work` alive until it ends; shutdown waits for it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#pending.add(work);
    work.finally(() => this.#pending.delete(work)).catch(() => {});
    return work;
  }

  /** Waits for tracked work, writes pending charges and returns idle budget leases, then writes the request log. */
  async drain(): Promise<void> {
    while (this.#pending.size) {
      // Settles wait for their aggregated entry: write it now rather than at the next interval.
      this.ledger.budgets.flush();
      await Promise.allSettled([...this.#pending]);
    }
    await this.ledger.budgets.returnIdle();
    await this.requestLog.flush();
  }
}
