/**
 * The actor of a member's console request: the account from the session, the role from the
 * member store at this moment (a role changed or a membership removed counts at once).
 */

import type { AccountActor } from "../../core/account_area/actor.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { ConsoleContext } from "./console_env.ts";
import { memberOf } from "./pages/member_account.tsx";

export async function accountActorOf(gateway: Gateway, c: ConsoleContext): Promise<AccountActor> {
  const { memberId, accountId } = memberOf(c);
  const role = await gateway.members.store.roleIn(memberId, accountId);
  if (!role) {
    throw new GatewayError("not_a_member", 403, "You are not a member of this account any more");
  }
  return { accountId, memberId, role };
}
