/**
 * Webhook deliveries in KV. A task's end leaves one outbox event (written in the commit that
 * ends it); the fan-out turns it into one delivery per matching endpoint and event, in commits
 * that check the event, and deletes it with the last. A delivery waits in a due index; an
 * attempt claims it with a lease (`leased_until`, the due entry moved there) by a versionstamp
 * check, so two instances never send the same attempt, and a killed sender's delivery is due
 * again when its lease runs out. Records expire after RETENTION_MS.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import { kvListOptions, type ListOptions } from "../kv/list_options.ts";
import { timeOrderedId } from "../util/ids.ts";
import type { WebhookEventType } from "./endpoint_schema.ts";
import type { WebhookPayload } from "./task_event.ts";
import type { KvAtomic, KvBackend } from "../kv/kv_backend.ts";

/** How long delivery records are kept. */
export const RETENTION_MS = 30 * 86_400_000;
/** Attempts kept on one record (redeliveries may add more than the schedule's). */
const MAX_KEPT_ATTEMPTS = 20;
/** Deliveries written per fan-out commit (4 mutations and a bounded body each). */
const FAN_OUT_CHUNK = 20;

export type DeliveryStatus = "pending" | "succeeded" | "failed";

/** One attempt to send a delivery. */
export interface DeliveryAttempt {
  /** 1 for the first. */
  n: number;
  /** ISO 8601. */
  at: string;
  latency_ms: number;
  /** The receiver's status, when it answered. */
  status_code?: number;
  /** Why the attempt failed (no answer, a non-2xx, a refused address). */
  error?: string;
}

export interface Delivery {
  id: string;
  /** The Standard Webhooks `webhook-id`: the same for every attempt, for receivers to dedupe on. */
  webhook_id: string;
  endpoint_id: string;
  /** The task's own callback_url, signed with the endpoint's secret; null: the endpoint's URL. */
  callback_url: string | null;
  task_id: string | null;
  event: WebhookEventType;
  body: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** Whether failed attempts are tried again on the schedule (Send test: no). */
  retries: boolean;
  /** When the next attempt is due (ms), while pending. */
  next_attempt_at: number | null;
  /** Until when a sender holds it (ms). */
  leased_until: number | null;
  created_at: string;
  expires_at: string;
}

/**
 * An event waiting for its fan-out: a task's end (`task_id`), or a channel event whose payload
 * it carries whole (`channel_event`, from core/channels/auto_disabler.ts).
 */
export interface OutboxEvent {
  id: string;
  task_id: string | null;
  channel_event?: WebhookPayload;
  /** Deliveries of it already written (the fan-out resumes after them). */
  fanned: number;
}

/** A delivery the fan-out makes. */
export type NewDelivery =
  & Pick<
    Delivery,
    "endpoint_id" | "callback_url" | "task_id" | "event" | "body" | "webhook_id"
  >
  & { retries?: boolean };

/** A due-index entry. */
export interface DueDelivery {
  deliveryId: string;
  dueKey: Deno.KvKey;
}

function expiry(): { expireIn: number } {
  return { expireIn: RETENTION_MS };
}

/** Writes the outbox event of a task's end into `atomic` (the commit that ends the task). */
export function writeOutboxEvent(atomic: KvAtomic, taskId: string): void {
  const id = timeOrderedId("wev");
  atomic.set(kvKeys.webhookOutbox(id), { id, task_id: taskId, fanned: 0 } satisfies OutboxEvent);
}

/** Writes a channel event into `atomic` (the commit that makes the change it tells of). */
export function writeChannelOutboxEvent(atomic: KvAtomic, payload: WebhookPayload): void {
  const id = timeOrderedId("wev");
  atomic.set(
    kvKeys.webhookOutbox(id),
    { id, task_id: null, channel_event: payload, fanned: 0 } satisfies OutboxEvent,
  );
}

export class DeliveryStore {
  readonly #kv: KvBackend;

  constructor(kv: KvBackend) {
    this.#kv = kv;
  }

  /** Outbox events, oldest first. */
  async outbox(limit: number): Promise<Deno.KvEntry<OutboxEvent>[]> {
    const found: Deno.KvEntry<OutboxEvent>[] = [];
    const entries = this.#kv.list<OutboxEvent>({ prefix: kvKeys.webhookOutboxes() }, { limit });
    for await (const entry of entries) found.push(entry);
    return found;
  }

  /** A fresh delivery record, due now. */
  #newRecord(input: NewDelivery, now: number): Delivery {
    return {
      id: timeOrderedId("whd"),
      ...input,
      retries: input.retries ?? true,
      status: "pending",
      attempts: [],
      next_attempt_at: now,
      leased_until: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + RETENTION_MS).toISOString(),
    };
  }

  #writeNew(atomic: KvAtomic, delivery: Delivery): void {
    atomic.set(kvKeys.webhookDelivery(delivery.id), delivery, expiry());
    atomic.set(kvKeys.webhookDeliveryByEndpoint(delivery.endpoint_id, delivery.id), delivery.id, {
      ...expiry(),
    });
    if (delivery.task_id) {
      atomic.set(kvKeys.webhookDeliveryByTask(delivery.task_id, delivery.id), delivery.id, {
        ...expiry(),
      });
    }
    atomic.set(kvKeys.webhookDue(delivery.next_attempt_at!, delivery.id), delivery.id);
  }

  /**
   * Writes `deliveries` for the outbox `event` (those after `event.fanned`, in commits of
   * FAN_OUT_CHUNK, each checking the event) and deletes it with the last. Returns false when
   * another instance moved the event meanwhile (it fans out the rest).
   */
  async fanOut(event: Deno.KvEntry<OutboxEvent>, deliveries: NewDelivery[]): Promise<boolean> {
    let entry: Deno.KvEntryMaybe<OutboxEvent> = event;
    let done = event.value.fanned;
    do {
      const chunk = deliveries.slice(done, done + FAN_OUT_CHUNK);
      const atomic = this.#kv.atomic().check(entry);
      const now = Date.now();
      for (const input of chunk) this.#writeNew(atomic, this.#newRecord(input, now));
      done += chunk.length;
      const last = done >= deliveries.length;
      if (last) atomic.delete(event.key);
      else atomic.set(event.key, { ...event.value, fanned: done });
      const result = await withKvRetry(() => atomic.commit());
      if (!result.ok) return false;
      if (last) return true;
      entry = { ...entry, versionstamp: result.versionstamp } as Deno.KvEntryMaybe<OutboxEvent>;
    } while (true);
  }

  /**
   * Writes one delivery already leased to the caller for `leaseMs` (Send test): no worker can
   * claim it before the caller's attempt, and it comes due when the lease runs out, should the
   * caller die mid-attempt.
   */
  async createClaimed(input: NewDelivery, leaseMs: number): Promise<Deno.KvEntry<Delivery>> {
    const now = Date.now();
    const leasedUntil = now + leaseMs;
    const delivery: Delivery = {
      ...this.#newRecord(input, now),
      next_attempt_at: leasedUntil,
      leased_until: leasedUntil,
    };
    const atomic = this.#kv.atomic();
    this.#writeNew(atomic, delivery);
    const result = await withKvRetry(() => atomic.commit());
    if (!result.ok) throw new Error(`delivery ${delivery.id} was not written`);
    return {
      key: kvKeys.webhookDelivery(delivery.id),
      value: delivery,
      versionstamp: result.versionstamp,
    };
  }

  /** The delivery, or null. */
  async get(id: string): Promise<Delivery | null> {
    if (!id.startsWith("whd_")) return null;
    return (await this.#kv.get<Delivery>(kvKeys.webhookDelivery(id))).value;
  }

  /** Deliveries due by now, in due order. */
  async *due(limit: number): AsyncGenerator<DueDelivery> {
    const entries = this.#kv.list<string>({
      start: kvKeys.webhooksDue() as unknown as Deno.KvKey,
      end: [...kvKeys.webhooksDue(), Date.now() + 1],
    }, { limit });
    for await (const entry of entries) yield { deliveryId: entry.value, dueKey: entry.key };
  }

  /**
   * Takes the lease of a delivery for `leaseMs`: from the due index (`due`), or at once
   * whatever its schedule (`now: true`, Send test and Redeliver). Null when it is not
   * claimable: another sender holds it, it is finished (unless `now`), or the index entry was
   * stale (then dropped).
   */
  claim(
    id: string,
    input: { leaseMs: number; due?: DueDelivery; now?: boolean },
  ): Promise<Deno.KvEntry<Delivery> | null> {
    return withKvRetry(async () => {
      const entry = await this.#kv.get<Delivery>(kvKeys.webhookDelivery(id));
      const delivery = entry.value;
      const now = Date.now();
      if (input.due) {
        const stale = !delivery || delivery.status !== "pending" ||
          delivery.next_attempt_at !== input.due.dueKey[1];
        if (stale) {
          await this.#kv.atomic().check(entry).delete(input.due.dueKey).commit();
          return null;
        }
      }
      if (!delivery || (!input.now && delivery.status !== "pending")) return null;
      if (delivery.leased_until !== null && delivery.leased_until > now) return null;
      const leasedUntil = now + input.leaseMs;
      const claimed: Delivery = { ...delivery, leased_until: leasedUntil };
      const atomic = this.#kv.atomic().check(entry);
      if (delivery.next_attempt_at !== null) {
        atomic.delete(kvKeys.webhookDue(delivery.next_attempt_at, id));
      }
      // Due again when the lease runs out, should this sender die mid-attempt.
      claimed.next_attempt_at = leasedUntil;
      if (delivery.status !== "pending") claimed.status = "pending";
      atomic.set(kvKeys.webhookDelivery(id), claimed, expiry());
      atomic.set(kvKeys.webhookDue(leasedUntil, id), id);
      const result = await atomic.commit();
      if (!result.ok) return null;
      return { ...entry, value: claimed, versionstamp: result.versionstamp };
    });
  }

  /**
   * Records an attempt made under the lease of `claimed`: the delivery becomes `status`, due
   * again at `nextAt` while pending. Returns the record, or null when the lease was lost.
   */
  record(
    claimed: Deno.KvEntry<Delivery>,
    input: { attempt: DeliveryAttempt; status: DeliveryStatus; nextAt: number | null },
  ): Promise<Delivery | null> {
    return withKvRetry(async () => {
      const delivery = claimed.value;
      const next: Delivery = {
        ...delivery,
        attempts: [...delivery.attempts, input.attempt].slice(-MAX_KEPT_ATTEMPTS),
        status: input.status,
        next_attempt_at: input.status === "pending" ? input.nextAt : null,
        leased_until: null,
      };
      const atomic = this.#kv.atomic().check(claimed);
      atomic.delete(kvKeys.webhookDue(delivery.next_attempt_at!, delivery.id));
      atomic.set(kvKeys.webhookDelivery(delivery.id), next, expiry());
      if (next.next_attempt_at !== null) {
        atomic.set(kvKeys.webhookDue(next.next_attempt_at, delivery.id), delivery.id);
      }
      const result = await atomic.commit();
      return result.ok ? next : null;
    });
  }

  /** Deliveries of an endpoint, newest first unless `order` is `asc`. */
  listByEndpoint(endpointId: string, options: ListOptions) {
    return this.#listIndex(kvKeys.webhookDeliveriesByEndpoint(endpointId), options);
  }

  /** Deliveries about a task, newest first unless `order` is `asc`. */
  listByTask(taskId: string, options: ListOptions) {
    return this.#listIndex(kvKeys.webhookDeliveriesByTask(taskId), options);
  }

  async #listIndex(
    prefix: Deno.KvKey,
    options: ListOptions,
  ): Promise<{ data: Delivery[]; cursor: string | null }> {
    const iterator = this.#kv.list<string>({ prefix }, kvListOptions(options));
    const ids: string[] = [];
    for await (const entry of iterator) ids.push(entry.value);
    const data: Delivery[] = [];
    for (let i = 0; i < ids.length; i += 10) {
      const found = await this.#kv.getMany<Delivery[]>(
        ids.slice(i, i + 10).map((id) => kvKeys.webhookDelivery(id)),
      );
      for (const entry of found) if (entry.value) data.push(entry.value);
    }
    return { data, cursor: ids.length === options.limit ? iterator.cursor : null };
  }
}
