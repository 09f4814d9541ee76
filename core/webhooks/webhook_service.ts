/**
 * The webhooks service: what the admin API and the console call. Endpoints (list, read, create,
 * change, delete, rotate, Send test), their deliveries and a task's deliveries, Redeliver, and
 * the check of a client's `callback_url`.
 */

import { GatewayError } from "../errors.ts";
import type { ListOptions } from "../kv/list_options.ts";
import type { TaskCallback } from "../tasks/task_record.ts";
import type { EndpointView, WebhookInput, WebhookPatch } from "./endpoint_schema.ts";
import type { EndpointStore, EndpointWithSecret } from "./endpoint_store.ts";
import type { Delivery, DeliveryStore } from "./delivery_store.ts";
import type { DeliveryWorker } from "./delivery_worker.ts";
import { bodyOf, testPayload } from "./task_event.ts";
import { newMessageId } from "./signing.ts";
import { webhookUrlProblem } from "./public_address.ts";

/** A delivery as the admin API shows it: times as ISO 8601, the payload as JSON. */
export interface DeliveryView extends Omit<Delivery, "body" | "next_attempt_at" | "leased_until"> {
  next_attempt_at: string | null;
  payload: unknown;
}

/** The admin view of `delivery`. Pure. */
export function deliveryView(delivery: Delivery): DeliveryView {
  const { body, next_attempt_at, leased_until: _lease, ...rest } = delivery;
  return {
    ...rest,
    next_attempt_at: next_attempt_at === null ? null : new Date(next_attempt_at).toISOString(),
    payload: JSON.parse(body),
  };
}

const deliveryNotFound = (id: string) =>
  new GatewayError("delivery_not_found", 404, `The endpoint has no delivery '${id}'`);

export class Webhooks {
  readonly endpoints: EndpointStore;
  readonly deliveries: DeliveryStore;
  readonly worker: DeliveryWorker;

  constructor(
    stores: { endpoints: EndpointStore; deliveries: DeliveryStore },
    worker: DeliveryWorker,
  ) {
    this.endpoints = stores.endpoints;
    this.deliveries = stores.deliveries;
    this.worker = worker;
  }

  /** Endpoints, a page. */
  list(options: ListOptions): Promise<{ data: EndpointView[]; cursor: string | null }> {
    return this.endpoints.list(options);
  }

  /** One endpoint (404 `webhook_not_found`). */
  get(id: string): Promise<EndpointView> {
    return this.endpoints.view(id);
  }

  /** A new endpoint with its secret, shown only in this answer. */
  create(input: WebhookInput): Promise<EndpointWithSecret> {
    return this.endpoints.create(input);
  }

  /** Changes the fields sent. */
  update(id: string, patch: WebhookPatch): Promise<EndpointView> {
    return this.endpoints.update(id, patch);
  }

  delete(id: string): Promise<void> {
    return this.endpoints.delete(id);
  }

  /** A new secret (shown once); the old one signs too for `graceSeconds`. */
  rotate(id: string, input: { graceSeconds: number }): Promise<EndpointWithSecret> {
    return this.endpoints.rotate(id, input);
  }

  /** Sends `webhook.test` to the endpoint now (one attempt, never retried). */
  async sendTest(id: string): Promise<DeliveryView> {
    await this.endpoints.get(id);
    return deliveryView(
      await this.worker.sendNew({
        endpoint_id: id,
        callback_url: null,
        task_id: null,
        event: "webhook.test",
        body: bodyOf(testPayload(id)),
        webhook_id: newMessageId(),
        retries: false,
      }),
    );
  }

  /** The endpoint's deliveries, newest first (the endpoint must exist). */
  async deliveriesOfEndpoint(id: string, options: ListOptions) {
    await this.endpoints.get(id);
    const page = await this.deliveries.listByEndpoint(id, options);
    return { data: page.data.map(deliveryView), cursor: page.cursor };
  }

  /** A task's deliveries, newest first. */
  async deliveriesOfTask(taskId: string, options: ListOptions) {
    const page = await this.deliveries.listByTask(taskId, options);
    return { data: page.data.map(deliveryView), cursor: page.cursor };
  }

  /** One more attempt of a delivery of the endpoint now, with the same webhook-id. */
  async redeliver(endpointId: string, deliveryId: string): Promise<DeliveryView> {
    await this.endpoints.get(endpointId);
    const delivery = await this.deliveries.get(deliveryId);
    if (!delivery || delivery.endpoint_id !== endpointId) throw deliveryNotFound(deliveryId);
    return deliveryView(await this.worker.sendNow(deliveryId));
  }

  /**
   * The callback a client asked for with `callback_url`, or a 400 in the client's envelope:
   * the endpoint that covers the key (the most specific) must allow task callbacks, and the URL
   * must pass the SSRF guard. Checked before anything is held.
   */
  async taskCallback(
    key: { id: string; group: string },
    url: string,
  ): Promise<TaskCallback> {
    const endpoint = await this.endpoints.callbackEndpointFor(key);
    if (!endpoint?.allow_task_callbacks) {
      throw new GatewayError(
        "callback_url_not_allowed",
        400,
        "callback_url is not allowed for this key: the operator has no webhook endpoint for it " +
          "that allows task callbacks; poll the task instead",
        { param: "callback_url" },
      );
    }
    const problem = webhookUrlProblem(url, { allowPrivate: this.endpoints.allowPrivate });
    if (problem) {
      throw new GatewayError("invalid_callback_url", 400, `callback_url ${problem}`, {
        param: "callback_url",
      });
    }
    return { url, endpoint_id: endpoint.id };
  }
}
