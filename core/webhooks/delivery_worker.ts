/**
 * The webhook worker: turns outbox events (tasks that ended) into deliveries, and sends the
 * deliveries that are due. Like the task worker it runs on a timer (GATEWAY_TASK_POLL_MS), is
 * woken in-process when a task ends, needs no KV queue, and shares the work with other instances
 * through leases checked in KV. Sends run concurrently up to a cap and nothing waits for them
 * but the worker itself, so a slow or dead receiver delays no task and no other receiver.
 */

import { GatewayError } from "../errors.ts";
import type { MediaStore } from "../media/media_store.ts";
import type { TaskStore } from "../tasks/task_store.ts";
import { taskBilling } from "../tasks/task_billing.ts";
import type { TaskRecord } from "../tasks/task_record.ts";
import { covers, type StoredEndpoint, type SubscribableEvent } from "./endpoint_schema.ts";
import type { EndpointStore } from "./endpoint_store.ts";
import {
  type Delivery,
  type DeliveryAttempt,
  type DeliveryStatus,
  type DeliveryStore,
  type NewDelivery,
  type OutboxEvent,
} from "./delivery_store.ts";
import {
  bodyOf,
  hostedMediaId,
  type ResultLink,
  resultUrlsOf,
  taskEventPayload,
  taskEventTypes,
} from "./task_event.ts";
import { newMessageId, webhookHeaders } from "./signing.ts";
import { deliveryAddress, type Resolver } from "./public_address.ts";
import { postWebhook } from "./webhook_post.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { PollLoop } from "../util/poll_loop.ts";

export interface DeliveryWorkerOptions {
  /** GATEWAY_WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** GATEWAY_WEBHOOK_TIMEOUT_MS: one attempt, name resolution included. */
  timeoutMs: number;
  /** GATEWAY_WEBHOOK_RETRY_BASE_MS: the wait after the first failed attempt. */
  retryBaseMs: number;
  /** GATEWAY_WEBHOOK_MAX_ATTEMPTS. */
  maxAttempts: number;
  /** How often the outbox and the due index are read when nothing wakes the worker. */
  pollMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** Name resolution for the SSRF guard (tests give their own). */
  resolve?: Resolver;
  /** A `user-agent` for the requests. */
  userAgent: string;
}

/** Where the worker reads tasks and writes deliveries. */
export interface DeliverySources {
  kv: KvBackend;
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  tasks: TaskStore;
  media: MediaStore;
  /** The group of a key, or null when the key is gone. */
  groupOf(keyId: string): Promise<string | null>;
  /** Counts an attempt by its outcome (`succeeded`, `failed`), for /metrics. */
  countAttempt?(outcome: "succeeded" | "failed"): void;
}

/** Each wait is this many times the one before. */
const BACKOFF_FACTOR = 5;
/** The longest wait between two attempts. */
const MAX_RETRY_DELAY_MS = 10 * 3_600_000;
const OUTBOX_BATCH = 20;
const DUE_BATCH = 50;
/** A sender's lease beyond the attempt's own timeout: time to record the outcome. */
const LEASE_MARGIN_MS = 2_000;

/** The wait after `attempts` failed attempts: base × 5^(attempts−1), at most 10 hours. Pure. */
export function retryDelayMs(attempts: number, { baseMs }: { baseMs: number }): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * Math.pow(BACKOFF_FACTOR, Math.max(0, attempts - 1)));
}

interface AttemptOutcome {
  status_code?: number;
  error?: string;
  /** No later attempt can succeed (the endpoint is gone or disabled). */
  final?: boolean;
}

/**
 * The deliveries of a channel event: one to each enabled endpoint of every key (no key or group
 * scope) that names the event in its `events`.
 */
export function channelDeliveries(
  endpoints: readonly StoredEndpoint[],
  event: Pick<OutboxEvent, "channel_event">,
): NewDelivery[] {
  const payload = event.channel_event!;
  const type = payload.type as SubscribableEvent;
  const body = bodyOf(payload);
  return endpoints
    .filter((endpoint) =>
      endpoint.enabled && !endpoint.key_id && !endpoint.group && endpoint.events.includes(type)
    )
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((endpoint) => ({
      endpoint_id: endpoint.id,
      callback_url: null,
      task_id: null,
      event: type,
      body,
      webhook_id: newMessageId(),
    }));
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === "TimeoutError") {
    return `no answer within ${timeoutMs} ms`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `could not connect: ${message.slice(0, 200)}`;
}

export class DeliveryWorker {
  readonly #sources: DeliverySources;
  readonly #options: DeliveryWorkerOptions;
  readonly #inFlight = new Map<string, Promise<unknown>>();
  #stopped = false;
  readonly #loop: PollLoop;

  constructor(sources: DeliverySources, options: DeliveryWorkerOptions) {
    this.#sources = sources;
    this.#options = options;
    this.#loop = new PollLoop({
      pass: async () => {
        await this.#fanOutPending();
        await this.#claimDue();
      },
      intervalMs: options.pollMs,
      onError: (error) =>
        console.error(JSON.stringify({ msg: "webhook pass failed", error: String(error) })),
    });
  }

  /** Starts the loop. */
  start(): void {
    this.#stopped = false;
    this.#loop.start();
  }

  /** Reads the outbox and the due index now rather than at the next poll. */
  wake(): void {
    this.#loop.wake();
  }

  /** Stops the loop and waits for attempts in flight (each ends within its timeout). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop.stop();
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** One pass: fan out what ended, send what is due, wait for those sends (crons call this). */
  async sweepDue(): Promise<number> {
    await this.#fanOutPending();
    const started = await this.#claimDue();
    await Promise.allSettled(started);
    return started.length;
  }

  async #fanOutPending(): Promise<void> {
    for (const event of await this.#sources.deliveries.outbox(OUTBOX_BATCH)) {
      if (this.#stopped) return;
      try {
        const made = await this.#sources.deliveries.fanOut(event, await this.#deliveriesOf(event));
        // It made deliveries: the loop passes again at once rather than after its interval.
        if (made) this.#loop.again();
      } catch (error) {
        console.error(JSON.stringify({
          msg: "webhook fan-out failed",
          task_id: event.value.task_id,
          error: String(error),
        }));
      }
    }
  }

  /** The deliveries a task's end makes: per event, each endpoint that wants it, and its callback. */
  async #deliveriesOf(event: Deno.KvEntry<OutboxEvent>): Promise<NewDelivery[]> {
    const { tasks, kv, endpoints } = this.#sources;
    if (event.value.channel_event) return channelDeliveries(await endpoints.all(), event.value);
    if (!event.value.task_id) return [];
    const task = await tasks.get(event.value.task_id);
    if (!task) return [];
    const all = await endpoints.all();
    const callback = task.callback
      ? all.find((endpoint) => endpoint.id === task.callback!.endpoint_id && endpoint.enabled)
      : undefined;
    // Most gateways have no endpoint: then a task's end costs one read here, no ledger scan.
    if (!callback && !all.some((endpoint) => endpoint.enabled)) return [];
    const group = await this.#sources.groupOf(task.key_id) ?? "";
    const hearing = all.filter((endpoint) =>
      endpoint.enabled && covers(endpoint, { id: task.key_id, group })
    ).sort((a, b) => (a.id < b.id ? -1 : 1));
    if (!callback && hearing.length === 0) return [];
    const billing = await taskBilling(kv, task);
    const types = taskEventTypes(task, billing);
    if (types.length === 0) return [];
    const links = await this.#linksOf(task);
    const made: NewDelivery[] = [];
    for (const type of types) {
      const body = bodyOf(taskEventPayload(type, { task, billing, links }));
      const to = (endpoint: StoredEndpoint, callbackUrl: string | null) =>
        made.push({
          endpoint_id: endpoint.id,
          callback_url: callbackUrl,
          task_id: task.id,
          event: type,
          body,
          webhook_id: newMessageId(),
        });
      for (const endpoint of hearing) if (endpoint.events.includes(type)) to(endpoint, null);
      if (callback?.events.includes(type)) to(callback, task.callback!.url);
    }
    return made;
  }

  async #linksOf(task: TaskRecord): Promise<ResultLink[]> {
    return await Promise.all(
      resultUrlsOf(task).map(async (url) => {
        const mediaId = hostedMediaId(url);
        const record = mediaId ? await this.#sources.media.get(mediaId).catch(() => null) : null;
        return { url, hosted: mediaId !== null, expires_at: record?.expires_at ?? null };
      }),
    );
  }

  get #leaseMs(): number {
    return this.#options.timeoutMs + LEASE_MARGIN_MS;
  }

  /** Claims due deliveries up to the free places and starts sending them. */
  async #claimDue(): Promise<Promise<unknown>[]> {
    const started: Promise<unknown>[] = [];
    const free = this.#options.concurrency - this.#inFlight.size;
    if (free <= 0) return started;
    for await (const due of this.#sources.deliveries.due(DUE_BATCH)) {
      if (started.length >= free || this.#stopped) break;
      if (this.#inFlight.has(due.deliveryId)) continue;
      const claimed = await this.#sources.deliveries.claim(due.deliveryId, {
        leaseMs: this.#leaseMs,
        due,
      });
      if (claimed) started.push(this.#track(claimed.value.id, this.#send(claimed, true)));
    }
    return started;
  }

  #track<T>(id: string, work: Promise<T>): Promise<T> {
    this.#inFlight.set(id, work);
    work.finally(() => {
      this.#inFlight.delete(id);
      if (!this.#stopped) this.wake();
    }).catch(() => {});
    return work;
  }

  /**
   * One attempt now, whatever the delivery's schedule (Send test, Redeliver), with the same
   * `webhook-id` and body; answers the delivery as it is after it. 409 while another attempt of
   * it is in flight.
   */
  async sendNow(id: string): Promise<Delivery> {
    const before = await this.#sources.deliveries.get(id);
    const claimed = before && await this.#sources.deliveries.claim(id, {
      leaseMs: this.#leaseMs,
      now: true,
    });
    if (!claimed) {
      throw new GatewayError(
        "delivery_in_flight",
        409,
        `Delivery '${id}' is being sent right now; look at its attempts in a moment`,
      );
    }
    const scheduled = before.status === "pending" && before.retries;
    const after = await this.#track(id, this.#send(claimed, scheduled));
    return after ?? (await this.#sources.deliveries.get(id))!;
  }

  /** Writes `input` leased to this sender and makes its one attempt now (Send test). */
  async sendNew(input: NewDelivery): Promise<Delivery> {
    const claimed = await this.#sources.deliveries.createClaimed(input, this.#leaseMs);
    const id = claimed.value.id;
    const after = await this.#track(id, this.#send(claimed, false));
    return after ?? (await this.#sources.deliveries.get(id))!;
  }

  /** Sends `claimed` once and records the attempt; retried later on failure when `schedule`. */
  async #send(claimed: Deno.KvEntry<Delivery>, schedule: boolean): Promise<Delivery | null> {
    const delivery = claimed.value;
    const started = Date.now();
    let outcome: AttemptOutcome;
    try {
      outcome = await this.#post(delivery);
    } catch (error) {
      outcome = { error: describeFailure(error, this.#options.timeoutMs) };
    }
    const n = delivery.attempts.length + 1;
    const attempt: DeliveryAttempt = {
      n,
      at: new Date(started).toISOString(),
      latency_ms: Date.now() - started,
      ...(outcome.status_code !== undefined ? { status_code: outcome.status_code } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    let status: DeliveryStatus = outcome.error ? "failed" : "succeeded";
    let nextAt: number | null = null;
    const retry = schedule && delivery.retries && !outcome.final &&
      n < this.#options.maxAttempts;
    if (outcome.error && retry) {
      status = "pending";
      nextAt = Date.now() + retryDelayMs(n, { baseMs: this.#options.retryBaseMs });
    }
    this.#sources.countAttempt?.(outcome.error ? "failed" : "succeeded");
    return await this.#sources.deliveries.record(claimed, { attempt, status, nextAt });
  }

  /** POSTs the delivery to the address checked for its receiver; never follows a redirect. */
  async #post(delivery: Delivery): Promise<AttemptOutcome> {
    let endpoint: StoredEndpoint;
    try {
      endpoint = await this.#sources.endpoints.get(delivery.endpoint_id);
    } catch {
      return { error: "the endpoint was deleted", final: true };
    }
    if (!endpoint.enabled && delivery.event !== "webhook.test") {
      return { error: "the endpoint is disabled", final: true };
    }
    const url = delivery.callback_url ?? endpoint.url;
    const signal = AbortSignal.timeout(this.#options.timeoutMs);
    const target = await deliveryAddress(url, {
      allowPrivate: this.#options.allowPrivate,
      resolve: this.#options.resolve,
      signal,
    });
    if ("problem" in target) return { error: `address refused: ${target.problem}` };
    const headers = await webhookHeaders(await this.#sources.endpoints.secretsOf(endpoint), {
      id: delivery.webhook_id,
      timestamp: Math.floor(Date.now() / 1000),
      body: delivery.body,
    });
    const status = await postWebhook(new URL(url), {
      headers: {
        ...headers,
        "content-type": "application/json",
        "user-agent": this.#options.userAgent,
      },
      body: delivery.body,
      signal,
      address: target.address,
    });
    if (status >= 200 && status < 300) return { status_code: status };
    if (status >= 300 && status < 400) {
      return { status_code: status, error: `answered ${status}, a redirect (never followed)` };
    }
    return { status_code: status, error: `answered ${status}` };
  }
}
