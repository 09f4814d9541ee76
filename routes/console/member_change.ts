/**
 * A change a member makes in the token management area, recorded through the same audited change
 * as the admin API's (core/audit/audited_change.ts) with the actor `member:<member id>`.
 */

import { auditedChange } from "../../core/audit/audited_change.ts";
import type { AccountActor } from "../../core/account_area/actor.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { ConsoleContext } from "./console_env.ts";
import type { ConsoleChange } from "./console_change.ts";

export function memberChange<T>(
  gateway: Gateway,
  { c, actor, change }: { c: ConsoleContext; actor: AccountActor; change: ConsoleChange<T> },
): Promise<T> {
  return auditedChange(gateway.audit, {
    ...change,
    actor: `member:${actor.memberId}`,
    clientAddress: c.get("clientAddress") ?? null,
    requestId: c.get("context")?.id ?? null,
  });
}
