/**
 * Roles on the account API: an owner manages every key of the account; a member manages the
 * keys they made, and another's key answers 404 (read, change, rotate, delete) as an unknown id
 * would; both read the account's usage, requests and ledger. The role is the member's current
 * one: a promotion or a removal applies to the token at once. Another account's ids are 404.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import {
  accountApi,
  accountApiGateway,
  assertOpenAIError,
  createAccount,
  memberWithToken,
  MODEL,
} from "../../helpers/account_api.ts";
import { postJson } from "../../helpers/gateway.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test(
  "account API roles: a member manages only the keys they made, reads the account's usage, requests and ledger; promotion and removal apply at once",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const account = await createAccount(gw, { balance: 5_000_000 });
    const owner = accountApi(
      gw,
      (await memberWithToken(gw, account.id, "o@example.com", "owner")).token,
    );
    const plain = await memberWithToken(gw, account.id, "m@example.com", "member");
    const member = accountApi(gw, plain.token);

    assertEquals((await member("GET")).body.role, "member");
    const ownerKey = (await owner("POST", "/keys", { name: "owner-key" })).body;
    const memberKey = await member("POST", "/keys", { name: "member-key" });
    assertEquals(memberKey.status, 201, JSON.stringify(memberKey.body));
    assertEquals(memberKey.body.created_by, plain.memberId);

    assertEquals((await member("GET", "/keys")).body.data.map((k: Json) => k.id), [
      memberKey.body.id,
    ]);
    assertEquals(
      (await owner("GET", "/keys")).body.data.map((k: Json) => k.id).sort(),
      [ownerKey.id, memberKey.body.id].sort(),
      "an owner sees every key of the account",
    );
    for (
      const [method, path, body] of [
        ["GET", `/keys/${ownerKey.id}`],
        ["PATCH", `/keys/${ownerKey.id}`, { name: "taken" }],
        ["POST", `/keys/${ownerKey.id}/rotate`, { grace_seconds: 0 }],
        ["DELETE", `/keys/${ownerKey.id}`],
      ] as const
    ) {
      const error = assertOpenAIError(await member(method, path, body), 404, "key_not_found");
      assertOk(!error.message.includes("owner-key"), "nothing says the key exists");
    }
    assertEquals((await owner("GET", `/keys/${ownerKey.id}`)).body.name, "owner-key", "untouched");
    const renamed = await owner("PATCH", `/keys/${memberKey.body.id}`, { name: "renamed" });
    assertEquals(renamed.status, 200, "an owner manages a member's key");

    // Both read the whole account's requests, usage and ledger.
    const used = await postJson(gw, "/v1/chat/completions", ownerKey.key, {
      model: MODEL,
      messages: [{ role: "user", content: "Hello" }],
    });
    assertEquals(used.status, 200);
    await used.body?.cancel();
    await gw.settle();
    const requests = (await member("GET", "/requests")).body.data;
    assertEquals(requests.map((r: Json) => r.key_id), [ownerKey.id]);
    assertEquals((await member("GET", `/requests/${requests[0].id}`)).status, 200);
    assertEquals((await member("GET", `/requests?key=${ownerKey.id}`)).body.data.length, 1);
    const usage = (await member("GET", "/usage?group_by=key")).body.data;
    assertEquals(usage.map((row: Json) => row.key_id), [ownerKey.id]);
    const ledger = (await member("GET", "/ledger")).body.data;
    assertOk(ledger.some((entry: Json) => entry.key_id === ownerKey.id), JSON.stringify(ledger));

    // Promoted: the same token manages every key at once.
    const promoted = await gw.admin(
      "PATCH",
      `/admin/accounts/${account.id}/members/${plain.memberId}`,
      { role: "owner" },
    );
    assertEquals(promoted.status, 200, JSON.stringify(promoted.body));
    assertEquals((await member("GET")).body.role, "owner");
    assertEquals((await member("GET", `/keys/${ownerKey.id}`)).status, 200);

    // Removed: the token stops; the keys the member made stay.
    const removed = await gw.admin(
      "DELETE",
      `/admin/accounts/${account.id}/members/${plain.memberId}`,
    );
    assertEquals(removed.status, 204, JSON.stringify(removed.body));
    assertOpenAIError(await member("GET"), 403, "not_a_member");
    assertOpenAIError(await member("GET", "/keys"), 403, "not_a_member");
    assertEquals((await owner("GET", `/keys/${memberKey.body.id}`)).body.name, "renamed");
  },
);

Deno.test(
  "account API isolation: ids of another account's keys and requests are 404 for an owner, by every route",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const a = await createAccount(gw, { name: "a", balance: 1_000_000 });
    const b = await createAccount(gw, { name: "b", balance: 1_000_000 });
    const ownerA = accountApi(
      gw,
      (await memberWithToken(gw, a.id, "a@example.com", "owner")).token,
    );
    const ownerB = accountApi(
      gw,
      (await memberWithToken(gw, b.id, "b@example.com", "owner")).token,
    );
    const keyB = (await ownerB("POST", "/keys", { name: "b-key" })).body;
    const used = await postJson(gw, "/v1/chat/completions", keyB.key, {
      model: MODEL,
      messages: [{ role: "user", content: "Hello" }],
    });
    await used.body?.cancel();
    await gw.settle();
    const requestB = (await ownerB("GET", "/requests")).body.data[0].id;

    for (
      const [method, path, body] of [
        ["GET", `/keys/${keyB.id}`],
        ["PATCH", `/keys/${keyB.id}`, { enabled: false }],
        ["POST", `/keys/${keyB.id}/rotate`, {}],
        ["DELETE", `/keys/${keyB.id}`],
        ["GET", `/requests?key=${keyB.id}`],
        ["GET", `/tasks?key=${keyB.id}`],
      ] as const
    ) {
      assertOpenAIError(await ownerA(method, path, body), 404, "key_not_found");
    }
    assertOpenAIError(await ownerA("GET", `/requests/${requestB}`), 404, "request_not_found");
    assertEquals((await ownerA("GET", "/requests")).body.data, []);
    assertEquals((await ownerA("GET", "/usage")).body.data, []);
    assertEquals((await ownerA("GET", "/keys")).body.data, []);
    const ledgerA = (await ownerA("GET", "/ledger")).body.data;
    assertEquals(ledgerA.map((e: Json) => e.type), ["credit"], "only A's opening credit");
    const keyView = (await ownerB("GET", `/keys/${keyB.id}`)).body;
    assertEquals([keyView.enabled, keyView.name], [true, "b-key"], "B's key untouched");
  },
);
