import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";

async function raw(url: string, key: string, body: BodyInit) {
  const response = await postJson({ url }, "/v1/chat/completions", key, body);
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: await response.json(),
  };
}

const cases: Array<[string, BodyInit, number, string, string | null]> = [
  ["malformed JSON", '{"model": "gpt-test", "messages": [', 400, "invalid_json", null],
  ["an empty body", "", 400, "invalid_json", null],
  ["a JSON array body", "[]", 400, "invalid_request", null],
  [
    "messages of the wrong type",
    JSON.stringify({ model: MODEL, messages: "hi" }),
    400,
    "invalid_request",
    "messages",
  ],
  [
    "an empty messages list",
    JSON.stringify({ model: MODEL, messages: [] }),
    400,
    "invalid_request",
    "messages",
  ],
  [
    "a message with an unknown role",
    JSON.stringify({ model: MODEL, messages: [{ role: "robot", content: "x" }] }),
    400,
    "invalid_request",
    "messages.0.role",
  ],
  [
    "a missing model",
    JSON.stringify({ messages: [{ role: "user", content: "x" }] }),
    400,
    "invalid_request",
    "model",
  ],
  [
    "stream of the wrong type",
    JSON.stringify({ model: MODEL, stream: "yes", messages: [{ role: "user", content: "x" }] }),
    400,
    "invalid_request",
    "stream",
  ],
  [
    "a negative max_tokens",
    JSON.stringify({ model: MODEL, max_tokens: -5, messages: [{ role: "user", content: "x" }] }),
    400,
    "invalid_request",
    "max_tokens",
  ],
  [
    "an unknown model",
    JSON.stringify({ model: "nope", messages: [{ role: "user", content: "x" }] }),
    404,
    "model_not_found",
    "model",
  ],
];

for (const [label, body, status, code, param] of cases) {
  Deno.test(
    `bad input: ${label} gets ${status} ${code} in the OpenAI envelope, no charge`,
    serverTest,
    async () => {
      await using s = await setupChat();
      const answer = await raw(s.gw.url, s.key, body);
      assertEquals(answer.status, status);
      assertEquals(answer.contentType, "application/json");
      assertEquals(answer.body.error.code, code);
      assertEquals(answer.body.error.param, param);
      assertOk(answer.body.error.message.length > 10);
      assertEquals(s.upstream.requests.length, 0);
      await assertNothingCharged(s, 10_000_000);
    },
  );
}

Deno.test(
  "bad input: a body over the limit gets 413 request_too_large, declared or streamed",
  serverTest,
  async () => {
    await using s = await setupChat();
    const huge = JSON.stringify({
      model: MODEL,
      messages: [{ role: "user", content: "x".repeat(33 * 1024 * 1024) }],
    });
    const declared = await raw(s.gw.url, s.key, huge);
    assertEquals(declared.status, 413);
    assertEquals(declared.body.error.code, "request_too_large");
    const chunks = new ReadableStream({
      start(controller) {
        const piece = new TextEncoder().encode("x".repeat(1024 * 1024));
        controller.enqueue(
          new TextEncoder().encode('{"model":"gpt-test","messages":[{"role":"user","content":"'),
        );
        for (let i = 0; i < 34; i++) controller.enqueue(piece);
        controller.close();
      },
    });
    const streamed = await raw(s.gw.url, s.key, chunks);
    assertEquals(streamed.status, 413);
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, 10_000_000);
  },
);

Deno.test(
  "bad input: unknown paths get a 404 in the OpenAI envelope with a request id",
  serverTest,
  async () => {
    await using s = await setupChat();
    const response = await fetch(`${s.gw.url}/v1/nothing-here`);
    assertEquals(response.status, 404);
    const body = await response.json();
    assertEquals(body.error.code, "not_found");
    assertOk(response.headers.get("x-request-id")?.startsWith("req_"));
  },
);
