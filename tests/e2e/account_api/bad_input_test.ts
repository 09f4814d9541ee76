/**
 * Bad input on the account API: each is a 400 (or the route's 404) in the OpenAI envelope that
 * names the parameter at fault, changes nothing and charges nothing.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import {
  accountApi,
  accountApiGateway,
  assertOpenAIError,
  createAccount,
  memberWithToken,
  MODEL,
  OTHER_MODEL,
} from "../../helpers/account_api.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test(
  "account API bad input: bad JSON, unknown fields, models outside the account, bad grace and bad queries → 400 naming the parameter; nothing charged",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const account = await createAccount(gw, { balance: 1_000_000 });
    const { token } = await memberWithToken(gw, account.id, "cy@example.com", "owner");
    const api = accountApi(gw, token);
    const key = (await api("POST", "/keys", { name: "app", models: [MODEL] })).body;

    assertOpenAIError(await api("POST", "/keys", "{not json"), 400, "invalid_json");
    assertOpenAIError(await api("POST", "/keys", "[1]"), 400, "invalid_request");
    assertOpenAIError(await api("PATCH", `/keys/${key.id}`, ""), 400, "invalid_json");

    const cases: Array<[string, string, unknown, string]> = [
      ["POST", "/keys", { name: "x", colour: "red" }, "colour"],
      ["POST", "/keys", { name: "x", balance: 5 }, "balance"],
      ["POST", "/keys", { name: "x", group: "vip" }, "group"],
      ["POST", "/keys", { name: "" }, "name"],
      ["POST", "/keys", { name: "x", models: [OTHER_MODEL] }, "models"],
      ["POST", "/keys", { name: "x", models: ["no-such-model"] }, "models"],
      ["POST", "/keys", { name: "x", rpm: -1 }, "rpm"],
      ["POST", "/keys", { name: "x", ip_allowlist: ["not an address"] }, "ip_allowlist.0"],
      ["PATCH", `/keys/${key.id}`, { models: [OTHER_MODEL] }, "models"],
      ["PATCH", `/keys/${key.id}`, { credit_limit: 10 }, "credit_limit"],
      ["POST", `/keys/${key.id}/rotate`, { grace_seconds: -1 }, "grace_seconds"],
      ["POST", `/keys/${key.id}/rotate`, { grace_seconds: 1.5 }, "grace_seconds"],
      ["POST", `/keys/${key.id}/rotate`, { grace_seconds: 99_999_999 }, "grace_seconds"],
      ["POST", `/keys/${key.id}/rotate`, { grace: 10 }, "grace"],
      ["POST", "/redeem", { code: "x", extra: true }, "extra"],
      ["POST", "/redeem", { code: 42 }, "code"],
      ["GET", "/usage?group_by=channel", undefined, "group_by"],
      ["GET", "/usage?interval=week", undefined, "interval"],
      ["GET", "/usage?from=yesterday", undefined, "from"],
      ["GET", "/requests?limit=0", undefined, "limit"],
      ["GET", "/requests?cursor=forged", undefined, "cursor"],
      ["GET", "/requests?key=nope", undefined, "key"],
      ["GET", "/ledger?order=sideways", undefined, "order"],
      ["GET", "/tasks?status=lost", undefined, "status"],
    ];
    for (const [method, path, body, param] of cases) {
      const answer = await api(method, path, body);
      assertEquals(answer.status, 400, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      assertEquals(
        answer.body.error.param,
        param,
        `${method} ${path}: ${JSON.stringify(answer.body)}`,
      );
    }
    const badId = assertOpenAIError(await api("GET", "/keys/nope"), 404, "key_not_found");
    assertEquals(badId.param, "id");
    assertOpenAIError(await api("GET", "/requests/req_nothing"), 404, "request_not_found");

    // Nothing changed or charged: the key as made, one key, the opening credit only.
    const after = (await api("GET", `/keys/${key.id}`)).body;
    assertEquals([after.name, after.models, after.rpm, after.previous_secret], [
      "app",
      [MODEL],
      null,
      null,
    ]);
    assertEquals((await api("GET", "/keys")).body.data.length, 1);
    const ledger = (await api("GET", "/ledger")).body.data as Json[];
    assertEquals(ledger.map((entry) => [entry.type, entry.amount]), [["credit", 1_000_000]]);
    assertEquals((await api("GET")).body.balance, 1_000_000);
  },
);
