import OpenAI from "openai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { openStore, postJson, serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";
import { Ledger } from "../../core/billing/ledger.ts";

const ask = { model: MODEL, messages: [{ role: "user" as const, content: "who am I" }] };

async function post(url: string, headers: Record<string, string>, body: unknown = ask) {
  const response = await postJson({ url }, "/v1/chat/completions", null, body, headers);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

function assertOpenAIError(
  answer: { status: number; headers: Headers; body: { error: Record<string, unknown> } },
  status: number,
  code: string,
) {
  assertEquals(answer.status, status);
  assertEquals(answer.body.error.code, code);
  assertOk(typeof answer.body.error.message === "string" && answer.body.error.message.length > 10);
  assertOk("type" in answer.body.error && "param" in answer.body.error);
  assertEquals(answer.body.error.request_id, answer.headers.get("x-request-id"));
}

Deno.test(
  "auth errors: missing, unknown, disabled, expired keys; nothing reaches upstream",
  serverTest,
  async () => {
    await using s = await setupChat();
    assertOpenAIError(await post(s.gw.url, {}), 401, "missing_api_key");
    assertOpenAIError(
      await post(s.gw.url, { authorization: "Bearer sk-gw-nope" }),
      401,
      "invalid_api_key",
    );

    const disabled = await s.gw.createKey({ balance: 1_000, enabled: false });
    assertOpenAIError(
      await post(s.gw.url, { authorization: `Bearer ${disabled.key}` }),
      401,
      "key_disabled",
    );

    const expired = await s.gw.createKey({ balance: 1_000, expires_at: "2020-01-01T00:00:00Z" });
    assertOpenAIError(
      await post(s.gw.url, { authorization: `Bearer ${expired.key}` }),
      401,
      "key_expired",
    );

    await s.gw.admin("PATCH", `/admin/keys/${s.keyId}`, { enabled: false });
    assertOpenAIError(
      await post(s.gw.url, { authorization: `Bearer ${s.key}` }),
      401,
      "key_disabled",
    );
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "model access: allowlist and group refuse with 403, unknown model 404, no charge",
  serverTest,
  async () => {
    await using s = await setupChat();
    const listed = await s.gw.createKey({ balance: 1_000_000, models: ["other-model"] });
    const answer = await post(s.gw.url, { authorization: `Bearer ${listed.key}` });
    assertOpenAIError(answer, 403, "model_not_allowed");
    assertEquals(answer.body.error.param, "model");

    const vip = await s.gw.createKey({ balance: 1_000_000, group: "vip" });
    assertOpenAIError(
      await post(s.gw.url, { authorization: `Bearer ${vip.key}` }),
      403,
      "model_not_allowed",
    );

    assertOpenAIError(
      await post(s.gw.url, { authorization: `Bearer ${s.key}` }, {
        ...ask,
        model: "no-such-model",
      }),
      404,
      "model_not_found",
    );
    assertOpenAIError(
      await post(s.gw.url, { authorization: `Bearer ${s.key}` }, {
        ...ask,
        model: "gen-image-2",
      }),
      400,
      "wrong_model_kind",
    );
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, 10_000_000);
    for (const other of [listed, vip]) {
      await assertNothingCharged({ gw: s.gw, keyId: other.id }, 1_000_000);
    }
  },
);

Deno.test(
  "insufficient balance: 402 insufficient_balance, x-should-retry false, SDK does not retry",
  serverTest,
  async () => {
    await using s = await setupChat({ balance: 10 });
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 2 });
    const error = await client.chat.completions.create(ask).catch((e) => e);
    assertOk(error instanceof OpenAI.APIError);
    assertEquals(error.status, 402);
    assertEquals((error.error as { code: string }).code, "insufficient_balance");
    assertEquals(error.headers?.get("x-should-retry"), "false");
    await s.gw.settle();
    const logged = (await s.gw.admin("GET", "/admin/requests")).body.data;
    assertEquals(logged.filter((entry: { status: number }) => entry.status === 402).length, 1);
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, 10);
  },
);

Deno.test("credit limit: a key may go below zero down to its limit", serverTest, async () => {
  await using s = await setupChat({ balance: 0, key: { credit_limit: 1_000_000 } });
  await s.client.chat.completions.create(ask);
  const balance = await s.gw.assertLedgerInvariant(s.keyId);
  assertOk(balance < 0 && balance >= -1_000_000);
});

Deno.test(
  "rate limit: requests past the key's rpm get 429 with retry-after and no charge",
  serverTest,
  async () => {
    await using s = await setupChat({ key: { rpm: 2 } });
    await s.client.chat.completions.create(ask);
    await s.client.chat.completions.create(ask);
    const answer = await post(s.gw.url, { authorization: `Bearer ${s.key}` });
    assertOpenAIError(answer, 429, "rate_limited");
    assertOk(Number(answer.headers.get("retry-after")) >= 1);
    assertEquals(s.upstream.requests.length, 2);
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "200 concurrent requests on a key that covers only some: no overdraft, invariant holds",
  serverTest,
  async () => {
    // Each request holds its upper bound (~ 15 input + 4096 output tokens ≈ 8,211 units).
    await using s = await setupChat({ balance: 400_000 });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => post(s.gw.url, { authorization: `Bearer ${s.key}` })),
    );
    const ok = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status === 402).length;
    assertEquals(ok + refused, 200);
    assertOk(ok > 0 && refused > 0, `ok ${ok}, refused ${refused}`);
    const balance = await s.gw.assertLedgerInvariant(s.keyId);
    assertOk(balance >= 0, `balance went to ${balance}`);
    assertEquals(s.upstream.requests.length, ok);
  },
);

Deno.test(
  "optimistic hold: money spent by another instance meanwhile still gives 402 and no charge",
  serverTest,
  async () => {
    await using s = await setupChat({ balance: 100_000 });
    using otherInstance = await openStore(s.gw.kvPath);
    await s.client.chat.completions.create(ask);
    const before = await s.gw.assertLedgerInvariant(s.keyId);
    await new Ledger(otherInstance).credit(s.keyId, -before, { note: "spent elsewhere" });
    const error = await s.client.chat.completions.create(ask).catch((e) => e);
    assertEquals(error.status, 402);
    assertEquals((error.error as { code: string }).code, "insufficient_balance");
    const streamError = await s.client.chat.completions.create({ ...ask, stream: true }).catch((
      e,
    ) => e);
    assertEquals(streamError.status, 402);
    await assertNothingCharged(s, 0);
  },
);
