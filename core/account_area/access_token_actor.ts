/**
 * Who a personal access token acts as: its member, in its account, with the member's role there
 * now. Each use checks the token (401 when unknown, revoked or expired), then the member (403
 * `member_disabled`), the membership (403 `not_a_member` once the member was removed) and the
 * account (403 `account_disabled` while it is suspended) — each from a cache of at most 5 s, so a
 * change made on another instance stops the token within that bound, one made here at once.
 */

import { GatewayError } from "../errors.ts";
import type { Gateway } from "../gateway.ts";
import { invalidAccessToken } from "../members/access_tokens.ts";
import type { AccountActor } from "./actor.ts";

export interface TokenActor {
  actor: AccountActor & { memberId: string };
  /** The token's id (for the audit trail: `pat:<id>`), never its secret. */
  tokenId: string;
}

export async function actorOfAccessToken(
  gateway: Gateway,
  secret: string,
  now = Date.now(),
): Promise<TokenActor> {
  const token = await gateway.members.accessTokens.authenticate(secret, now);
  const store = gateway.members.store;
  const member = await store.cachedMember(token.member_id, now);
  if (!member) throw invalidAccessToken();
  if (member.disabled) {
    throw new GatewayError(
      "member_disabled",
      403,
      `The member of access token '${token.prefix}…' is disabled`,
    );
  }
  const role = await store.cachedRoleIn(token.member_id, token.account_id, now);
  if (!role) {
    throw new GatewayError(
      "not_a_member",
      403,
      `The member of access token '${token.prefix}…' is no longer a member of account ` +
        `'${token.account_id}'`,
    );
  }
  const account = await gateway.accounts.cached(token.account_id, now);
  if (!account) throw invalidAccessToken();
  if (!account.enabled) {
    throw new GatewayError(
      "account_disabled",
      403,
      `The account '${account.id}' is suspended; its keys and access tokens are refused until ` +
        "the operator resumes it",
    );
  }
  return {
    actor: { accountId: token.account_id, memberId: token.member_id, role },
    tokenId: token.id,
  };
}
