/**
 * Webhook endpoints: what an operator registers (a URL, the events it wants, whose tasks it
 * hears of) and how it is stored (its secret sealed, never in clear).
 */

import { z } from "zod";
import { patchShape } from "../util/patch_schema.ts";

/** The task events an endpoint may subscribe to; `webhook.test` is sent only by Send test. */
export const TASK_EVENTS = ["task.succeeded", "task.failed", "task.refunded"] as const;
export type TaskEventType = (typeof TASK_EVENTS)[number];
/**
 * The operator's events: the gateway disabled a channel or one of its keys on its own, or a
 * recovery probe enabled it again. Named in `events` only (never a default), by endpoints of
 * every key (no `key_id` or `group`): they are about channels, not a client's tasks.
 */
export const CHANNEL_EVENTS = ["channel.disabled", "channel.recovered"] as const;
export type ChannelEventType = (typeof CHANNEL_EVENTS)[number];
/** Every event an endpoint may name in `events`. */
export const SUBSCRIBABLE_EVENTS = [...TASK_EVENTS, ...CHANNEL_EVENTS] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
export type WebhookEventType = SubscribableEvent | "webhook.test";

const KEY_ID = /^key_[0-9A-Za-z]{1,64}$/;

const endpointFields = {
  url: z.string().min(1, "url is required").max(2048),
  events: z.array(z.enum(SUBSCRIBABLE_EVENTS)).min(1, "events must name at least one event")
    .default([...TASK_EVENTS]),
  key_id: z.string().regex(KEY_ID, "key_id must be a key id (key_…)").nullable().default(null),
  group: z.string().min(1).max(100).nullable().default(null),
  description: z.string().max(500).default(""),
  enabled: z.boolean().default(true),
  allow_task_callbacks: z.boolean().default(false),
};

function oneScope(
  input: { key_id?: string | null; group?: string | null; events?: readonly string[] },
  ctx: z.RefinementCtx,
): void {
  const channelEvents = (input.events ?? []).filter((event) =>
    (CHANNEL_EVENTS as readonly string[]).includes(event)
  );
  if (channelEvents.length && (input.key_id || input.group)) {
    ctx.addIssue({
      code: "custom",
      path: ["events"],
      message:
        `${
          channelEvents.join(", ")
        } are about channels, not one key's tasks: only an endpoint of every key (no key_id or ` +
        "group) may name them",
    });
  }
  if (input.key_id && input.group) {
    ctx.addIssue({
      code: "custom",
      path: ["group"],
      message: "Send key_id or group, not both: an endpoint hears of one key, one group, or all",
    });
  }
}

/** POST /admin/webhooks. */
export const webhookCreateSchema = z.strictObject(endpointFields).superRefine(oneScope);
export type WebhookInput = z.infer<typeof webhookCreateSchema>;

/** PATCH /admin/webhooks/{id}: only the fields sent change. */
export const webhookPatchSchema = z.strictObject(patchShape(endpointFields)).superRefine(oneScope);
export type WebhookPatch = z.infer<typeof webhookPatchSchema>;

/** POST /admin/webhooks/{id}/rotate. */
export const webhookRotateSchema = z.strictObject({
  /** How long the old secret keeps signing beside the new one (0: it stops at once). */
  grace_seconds: z.int().nonnegative().max(30 * 86_400).default(86_400),
});

/** An endpoint as KV holds it. */
export interface StoredEndpoint {
  id: string;
  url: string;
  events: SubscribableEvent[];
  key_id: string | null;
  group: string | null;
  description: string;
  enabled: boolean;
  allow_task_callbacks: boolean;
  /** `config` for endpoints the config file writes at every boot. */
  source: "admin" | "config";
  sealed_secret: string;
  /** The secret the last rotation replaced, signing beside the new one until `expires_at`. */
  previous?: { sealed_secret: string; expires_at: string } | null;
  created_at: string;
  updated_at: string;
}

/** An endpoint as the admin API shows it: no secret, sealed or clear. */
export interface EndpointView {
  id: string;
  url: string;
  events: SubscribableEvent[];
  key_id: string | null;
  group: string | null;
  description: string;
  enabled: boolean;
  allow_task_callbacks: boolean;
  source: "admin" | "config";
  /** When the previous secret stops signing, while a rotation grace runs; else null. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The public view of `endpoint`. Pure. */
export function endpointView(endpoint: StoredEndpoint, now = Date.now()): EndpointView {
  const { sealed_secret: _sealed, previous, ...rest } = endpoint;
  const inGrace = previous && Date.parse(previous.expires_at) > now;
  return { ...rest, previous_secret_expires_at: inGrace ? previous.expires_at : null };
}

/** Whether `endpoint` hears of tasks of `key`: all keys, the key's group, or the key itself. */
export function covers(
  endpoint: Pick<StoredEndpoint, "key_id" | "group">,
  key: { id: string; group: string },
): boolean {
  if (endpoint.key_id) return endpoint.key_id === key.id;
  if (endpoint.group) return endpoint.group === key.group;
  return true;
}

/** How specific an endpoint's scope is: a key 2, a group 1, all keys 0. */
export function specificity(endpoint: Pick<StoredEndpoint, "key_id" | "group">): number {
  return endpoint.key_id ? 2 : endpoint.group ? 1 : 0;
}
