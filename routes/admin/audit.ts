/** GET /admin/audit: who changed what, newest first, with filters. */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import { pageAnswer, serveRoute, TEXT_QUERY } from "../openapi/declare_route.ts";
import { invalidQueryParameter, queryValue } from "../params.ts";
import { adminRoute, LIST_QUERY, listed, listOptions } from "./shared.ts";

function textFilter(url: URL, name: string): string | undefined {
  const value = queryValue(url, name) || undefined;
  if (value !== undefined && value.length > 300) {
    throw invalidQueryParameter(name, "must be at most 300 characters");
  }
  return value;
}

/** The `?actor=&target_kind=&target_id=` filters of an audit list. */
export function auditFilter(url: URL) {
  return {
    actor: textFilter(url, "actor"),
    target_kind: textFilter(url, "target_kind"),
    target_id: textFilter(url, "target_id"),
  };
}

const listAudit = adminRoute({
  method: "get",
  path: "/admin/audit",
  summary: "Who changed what: audit records, newest first",
  query: [
    ...LIST_QUERY,
    {
      name: "actor",
      description: "`admin_token`, `console`, `config`, or one session or file (`config:<file>`)",
      schema: TEXT_QUERY,
    },
    { name: "target_kind", description: "`key`, `channel`, `model`, …", schema: TEXT_QUERY },
    { name: "target_id", description: "the target's id", schema: TEXT_QUERY },
  ],
  answers: pageAnswer("audit records", "AuditPage"),
});

export function adminAuditRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, listAudit, async (c) => {
    const url = c.get("url");
    const options = listOptions(url);
    const filter = auditFilter(url);
    return c.json(await listed(options, () => gateway.audit.list(options, filter)));
  });
  return app;
}
