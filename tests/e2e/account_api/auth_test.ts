/**
 * What authenticates on the account API and what does not: a personal access token is refused
 * on the model interfaces (401 in each one's envelope) and an API key or the admin token on
 * /v1/account (401, OpenAI envelope); a revoked or expired token is 401; a suspended account is
 * 403 account_disabled until resumed; and failed token authentications count in the
 * failed-authentication throttle like any other 401.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import {
  accountApi,
  accountApiGateway,
  assertOpenAIError,
  call,
  createAccount,
  memberWithToken,
  MODEL,
} from "../../helpers/account_api.ts";

const chat = { model: MODEL, messages: [{ role: "user", content: "Hello" }] };

Deno.test(
  "account API auth: a token is not an API key, and an API key or the admin token is not a token",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const account = await createAccount(gw, { balance: 1_000_000 });
    const { token } = await memberWithToken(gw, account.id, "ann@example.com", "owner");
    const key = (await accountApi(gw, token)("POST", "/keys", { name: "app" })).body.key;

    const openai = await postJson(gw, "/v1/chat/completions", token, chat);
    const refused = assertOpenAIError(
      { status: openai.status, body: await openai.json(), headers: openai.headers },
      401,
      "invalid_api_key",
    );
    assertOk(refused.message.includes("personal access token"), refused.message);
    assertOk(!refused.message.includes(token), "the secret is not echoed");
    const anthropic = await postJson(gw, "/v1/messages", null, { ...chat, max_tokens: 10 }, {
      "x-api-key": token,
    });
    assertEquals(anthropic.status, 401);
    assertEquals((await anthropic.json()).type, "error", "Anthropic's envelope");
    assertEquals((await call(gw, token, "GET", "/v1/me")).status, 401);

    for (const wrong of [key, ADMIN_TOKEN]) {
      const error = assertOpenAIError(
        await call(gw, wrong, "GET", "/v1/account"),
        401,
        "invalid_access_token",
      );
      assertOk(error.message.includes("gwpat-"), error.message);
    }
    assertOpenAIError(await call(gw, null, "GET", "/v1/account/keys"), 401, "missing_access_token");
    assertOpenAIError(
      await call(gw, null, "GET", "/v1/account", undefined, { "x-api-key": token }),
      401,
      "missing_access_token",
    );
    assertOpenAIError(
      await call(gw, `gwpat-${"x".repeat(43)}`, "GET", "/v1/account"),
      401,
      "invalid_access_token",
    );
    // Nothing was charged by any of it.
    assertEquals((await accountApi(gw, token)("GET")).body.balance, 1_000_000);
  },
);

Deno.test(
  "account API auth: a revoked token and an expired one are 401; a suspended account is 403 account_disabled until resumed",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const account = await createAccount(gw, { balance: 1_000_000 });
    const owner = await memberWithToken(gw, account.id, "bo@example.com", "owner");
    const api = accountApi(gw, owner.token);
    assertEquals((await api("GET")).status, 200);

    const suspended = await gw.admin("POST", `/admin/accounts/${account.id}/suspend`);
    assertEquals(suspended.status, 200, JSON.stringify(suspended.body));
    assertOpenAIError(await api("GET"), 403, "account_disabled");
    assertOpenAIError(await api("POST", "/keys", { name: "x" }), 403, "account_disabled");
    assertEquals((await gw.admin("POST", `/admin/accounts/${account.id}/resume`)).status, 200);
    assertEquals((await api("GET")).status, 200, "works again once resumed");

    // An expired token: made (through the token store, its clock two days back) to end a day ago.
    const gateway = gw.running.gateway;
    const day = 86_400_000;
    const made = await gateway.members.accessTokens.create(
      owner.memberId,
      account.id,
      { name: "old", expires_at: new Date(Date.now() - day).toISOString() },
      Date.now() - 2 * day,
    );
    const expired = assertOpenAIError(
      await call(gw, made.token, "GET", "/v1/account"),
      401,
      "access_token_expired",
    );
    assertOk(expired.message.includes(made.prefix), expired.message);

    // Revoked in Settings: the next call is refused.
    const settings = await (await owner.client.get("/console/settings")).text();
    const id = [...settings.matchAll(/name="id" value="(pat_[0-9A-Za-z]+)"/g)].map((m) => m[1]);
    assertEquals(id.length, 2, "both tokens are listed");
    const live = id.find((tokenId) => tokenId !== made.id)!;
    const revoked = await owner.client.postMember("/console/settings/tokens/revoke", { id: live });
    assertEquals(revoked.status, 200);
    await revoked.body?.cancel();
    assertOpenAIError(await api("GET"), 401, "invalid_access_token");
  },
);

Deno.test(
  "account API auth: failed token authentications count in the failed-authentication throttle",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const bad = `gwpat-${"y".repeat(43)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await call(s.gw, bad, "GET", "/v1/account")).status);
    }
    assertEquals(statuses, Array(10).fill(401));
    assertOpenAIError(await call(s.gw, bad, "GET", "/v1/account"), 429, "auth_rate_limited");
    // The address is blocked for the model interfaces too: one throttle for every 401.
    const chatAnswer = await postJson(s.gw, "/v1/chat/completions", "sk-gw-nothing", chat);
    assertEquals(chatAnswer.status, 429);
    await chatAnswer.body?.cancel();
  },
);
