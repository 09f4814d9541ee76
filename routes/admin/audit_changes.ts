/**
 * The audit middleware of the admin API: every POST, PUT, PATCH and DELETE under /admin is an
 * audited change (core/audit). The target comes from the route: `/admin/<area>/:id…` names the
 * area and the id; a reader per area gives its public view through the same service calls as the
 * API, read before and after the handler. Routes added later are covered without doing anything;
 * an area without a reader keeps the handler's JSON answer (secrets stripped) as `after`.
 */

import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { type AuditActor } from "../../core/audit/audit_log.ts";
import { auditedChange, type ChangeOutcome } from "../../core/audit/audited_change.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

interface TargetReader {
  kind: string;
  read(gateway: Gateway, id: string): unknown;
}

/** The areas whose records have a public view, by the path segment after /admin/. */
const TARGET_READERS: Record<string, TargetReader> = {
  keys: { kind: "key", read: (gateway, id) => gateway.keys.get(id) },
  accounts: { kind: "account", read: (gateway, id) => gateway.accounts.get(id) },
  channels: {
    kind: "channel",
    read: async (gateway, id) =>
      gateway.registry.channelView(await gateway.registry.getChannel(id)),
  },
  models: { kind: "model", read: (gateway, id) => gateway.registry.getModel(id) },
  webhooks: { kind: "webhook", read: (gateway, id) => gateway.webhooks.get(id) },
  groups: { kind: "group", read: (gateway, name) => gateway.groups.get(name) },
  // A setting is named by the path itself: /admin/settings/money.
  settings: {
    kind: "setting",
    read: (gateway, name) => name === "money" ? gateway.moneyFormat.get() : null,
  },
  // A batch's view never holds its codes: the 201 that shows them once is not what is kept.
  "redemption-batches": {
    kind: "redemption_batch",
    read: (gateway, id) => gateway.redemptions.store.summary(id),
  },
  "redemption-codes": {
    kind: "redemption_code",
    read: (gateway, id) => gateway.redemptions.store.code(id),
  },
};

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The area and the target id of an admin route: `/admin/keys/:id/credit` → keys, the id; a
 * setting's route names its setting: `/admin/settings/money` → settings, money.
 */
export function adminTarget(template: string, pathname: string) {
  const templateParts = template.split("/");
  const pathParts = pathname.split("/");
  const area = templateParts[2] ?? "";
  const id = templateParts[3]?.startsWith(":") && pathParts[3] !== undefined
    ? decodeSegment(pathParts[3])
    : area === "settings"
    ? templateParts[3] ?? null
    : null;
  return { area, id };
}

/** How a handler's answer ended, for the audit record (the created id of a 201). */
export async function responseOutcome(c: Context<AppEnv>): Promise<ChangeOutcome> {
  const response = c.res;
  let returned: unknown;
  if (response.headers.get("content-type")?.includes("json")) {
    returned = await response.clone().json().catch(() => undefined);
  }
  const createdId = returned && typeof returned === "object" && "id" in returned &&
      typeof returned.id === "string"
    ? returned.id
    : null;
  return {
    status: response.status,
    errorCode: c.error instanceof GatewayError ? c.error.code : null,
    createdId: response.status === 201 ? createdId : null,
    returned,
  };
}

/** Audits every admin mutation; `actorOf` says who made it (default: the admin token). */
export function auditAdminChanges(
  gateway: Gateway,
  options: { actorOf?: (c: Context<AppEnv>) => AuditActor } = {},
): MiddlewareHandler<AppEnv> {
  return async function auditAdminChange(c, next) {
    const template = routePath(c, -1);
    if (!MUTATIONS.has(c.req.method) || !template || template.endsWith("*")) return await next();
    const { area, id } = adminTarget(template, c.get("url").pathname);
    const reader = TARGET_READERS[area];
    await auditedChange(gateway.audit, {
      actor: options.actorOf?.(c) ?? "admin_token",
      clientAddress: c.get("clientAddress") ?? null,
      method: c.req.method,
      route: template,
      target: { kind: reader?.kind ?? area.replace(/s$/, ""), id },
      requestId: c.get("context")?.id ?? null,
      readTarget: reader && ((targetId) => reader.read(gateway, targetId)),
      apply: () => next(),
      outcomeOf: () => responseOutcome(c),
    });
  };
}
