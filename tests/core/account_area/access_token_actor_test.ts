/**
 * A token acts as its member with the member's role of the moment: checked on a real gateway
 * (real KV), through the stores a change goes through — a member disabled is refused with 403
 * member_disabled (the admin API has no route for it yet), a role change applies at once.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { GatewayError } from "../../../core/errors.ts";
import { actorOfAccessToken } from "../../../core/account_area/access_token_actor.ts";

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => null, (e) => e);
  assertOk(error instanceof GatewayError, `expected a GatewayError, got ${error}`);
  return error;
}

Deno.test(
  "actorOfAccessToken: the member's current role; disabled member 403; removed 403; suspended account 403",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const gateway = gw.running.gateway;
    const account = await gateway.accounts.create({
      name: "acme",
      group: "default",
      credit_limit: 0,
      unlimited: false,
      enabled: true,
      balance: 0,
    });
    const store = gateway.members.store;
    const member = await store.create({ email: "a@example.com", name: "A", passwordHash: "x" });
    await store.addMembership(member.id, account.id, "member");
    const { token } = await gateway.members.accessTokens.create(member.id, account.id, {
      name: "t",
    });

    const found = await actorOfAccessToken(gateway, token);
    assertEquals(found.actor, { accountId: account.id, memberId: member.id, role: "member" });
    assertOk(found.tokenId.startsWith("pat_"));
    await store.setRole(member.id, account.id, "owner");
    assertEquals((await actorOfAccessToken(gateway, token)).actor.role, "owner");

    await store.update(member.id, (record) => ({ ...record, disabled: true }));
    const disabled = await refusal(actorOfAccessToken(gateway, token));
    assertEquals([disabled.status, disabled.code], [403, "member_disabled"]);
    await store.update(member.id, (record) => ({ ...record, disabled: false }));

    await gateway.accounts.update(account.id, { enabled: false });
    const suspended = await refusal(actorOfAccessToken(gateway, token));
    assertEquals([suspended.status, suspended.code], [403, "account_disabled"]);
    await gateway.accounts.update(account.id, { enabled: true });

    await store.removeMembership(member.id, account.id);
    const removed = await refusal(actorOfAccessToken(gateway, token));
    assertEquals([removed.status, removed.code], [403, "not_a_member"]);
  },
);
