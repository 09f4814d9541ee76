/**
 * Every change made through the account API (POST, PATCH, DELETE under /v1/account) is an
 * audited change like the operator's, with the actor `pat:<token id>` (never the secret). A key
 * route's target is the key, read as the member sees it; any other route's is the account.
 */

import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { auditedChange } from "../../core/audit/audited_change.ts";
import type { AccountArea } from "../../core/account_area/account_area.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { responseOutcome } from "../admin/audit_changes.ts";

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `/v1/account/keys/:id/rotate` → the key's id; `/v1/account/keys` → a key not made yet. */
function targetOf(template: string, pathname: string) {
  const parts = template.split("/");
  if (parts[3] !== "keys") return { kind: "account" as const, id: null };
  const id = parts[4]?.startsWith(":") ? decodeURIComponent(pathname.split("/")[4] ?? "") : null;
  return { kind: "key" as const, id };
}

export function auditAccountChanges(
  gateway: Gateway,
  area: AccountArea,
): MiddlewareHandler<AppEnv> {
  return async function auditAccountChange(c, next) {
    const template = routePath(c, -1);
    if (!MUTATIONS.has(c.req.method) || !template || template.endsWith("*")) return await next();
    const actor = c.get("actor");
    const target = targetOf(template, c.get("url").pathname);
    await auditedChange(gateway.audit, {
      actor: `pat:${c.get("accessTokenId")}`,
      clientAddress: c.get("clientAddress") ?? null,
      method: c.req.method,
      route: template,
      target: target.kind === "key" ? target : { kind: "account", id: actor.accountId },
      requestId: c.get("context")?.id ?? null,
      readTarget: target.kind === "key" ? (id) => area.key(actor, id) : () => area.account(actor),
      apply: () => next(),
      outcomeOf: () => responseOutcome(c),
    });
  };
}
