/**
 * The payload of a task event: `{type, timestamp, data}`, where `data` is the task exactly as
 * its status route shows it, with its kind, its billing (billed, refunded, ledger entry ids) and
 * its hosted result links with their expiry beside it. Pure.
 */

import type { RefBilling } from "../billing/ledger_audit.ts";
import type { TaskRecord } from "../tasks/task_record.ts";
import { taskStatusView } from "../tasks/task_views.ts";
import type { TaskEventType, WebhookEventType } from "./endpoint_schema.ts";

/** A result link: hosted by the gateway (with its expiry), or the upstream's own (expiry unknown). */
export interface ResultLink {
  url: string;
  hosted: boolean;
  expires_at: string | null;
}

export interface WebhookPayload {
  type: WebhookEventType;
  /** ISO 8601: when the event was made (the task's end for task events). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** Largest body sent; a larger task view is cut to its id and status (never in practice). */
export const MAX_BODY_BYTES = 32 * 1024;

/** The events a finished task makes: its end, then `task.refunded` when money was given back. */
export function taskEventTypes(
  task: Pick<TaskRecord, "status">,
  billing: Pick<RefBilling, "refunded">,
): TaskEventType[] {
  const types: TaskEventType[] = [];
  if (task.status === "succeeded") types.push("task.succeeded");
  if (task.status === "failed") types.push("task.failed");
  if (types.length && billing.refunded > 0) types.push("task.refunded");
  return types;
}

/** The media id of a hosted link (`…/media/med_….png`), or null for another address. */
export function hostedMediaId(url: string): string | null {
  return /\/media\/(med_[0-9A-Za-z]+)\.[0-9a-z]+$/.exec(url)?.[1] ?? null;
}

/** The result links of `task`: its images, or its video. */
export function resultUrlsOf(task: Pick<TaskRecord, "status" | "result_url" | "image_urls">) {
  if (task.status !== "succeeded") return [];
  return task.image_urls ?? (task.result_url ? [task.result_url] : []);
}

/** The payload of `type` about `task`. */
export function taskEventPayload(
  type: TaskEventType,
  facts: { task: TaskRecord; billing: RefBilling; links: ResultLink[] },
): WebhookPayload {
  const { task, billing, links } = facts;
  return {
    type,
    timestamp: new Date((task.finish_time ?? Math.floor(Date.now() / 1000)) * 1000).toISOString(),
    data: {
      ...taskStatusView(task),
      kind: task.kind,
      billing: {
        held: billing.held,
        billed: billing.settled,
        refunded: billing.refunded,
        ledger_entry_ids: billing.entry_ids,
      },
      result_links: links,
    },
  };
}

/** The payload of Send test. */
export function testPayload(endpointId: string): WebhookPayload {
  return {
    type: "webhook.test",
    timestamp: new Date().toISOString(),
    data: { endpoint_id: endpointId, message: "A test delivery sent from the gateway's admin API" },
  };
}

/** `payload` as the body sent, cut to the task's id and status when over MAX_BODY_BYTES. */
export function bodyOf(payload: WebhookPayload): string {
  const body = JSON.stringify(payload);
  if (new TextEncoder().encode(body).length <= MAX_BODY_BYTES) return body;
  const { task_id, status } = payload.data;
  return JSON.stringify({ ...payload, data: { task_id, status, truncated: true } });
}
