/**
 * A change made from the console, recorded through the same audited change as the admin API's
 * (core/audit/audited_change.ts), with the actor `console:<session label>` — the label is a
 * prefix of the session id's hash, so the audit log never holds a usable session id.
 */

import { auditedChange, type ChangeOutcome } from "../../core/audit/audited_change.ts";
import type { AuditTarget } from "../../core/audit/audit_log.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { ConsoleContext } from "./console_env.ts";

export interface ConsoleChange<T> {
  /** The equivalent admin route, e.g. `/admin/keys/:id`. */
  route: string;
  method: string;
  target: AuditTarget;
  readTarget?: (id: string) => Promise<unknown> | unknown;
  apply: () => Promise<T>;
  outcomeOf?: (result: T) => ChangeOutcome;
}

/** Applies and records `change` for the signed-in session of `c`. */
export function consoleChange<T>(
  gateway: Gateway,
  { c, change }: { c: ConsoleContext; change: ConsoleChange<T> },
): Promise<T> {
  return auditedChange(gateway.audit, {
    ...change,
    actor: `console:${c.get("session").label}`,
    clientAddress: c.get("clientAddress") ?? null,
    requestId: c.get("context")?.id ?? null,
  });
}
