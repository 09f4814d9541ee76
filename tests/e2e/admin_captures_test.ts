/**
 * Body capture end to end: off by default, switched on per key with a TTL, request and answer
 * (or a stream's text) stored redacted, the request record flagged, off again by DELETE or expiry.
 */

import Anthropic from "@anthropic-ai/sdk";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertAdminError } from "../helpers/admin_error.ts";
import { serverTest, type TestGateway } from "../helpers/gateway.ts";
import { MODEL, MODEL_OF, setupChat, setupText } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SECRET = "sk-proj-abcdefghijklmnop123456";

/** The request log's record of `requestId`. */
async function requestRecord(gw: TestGateway, keyId: string, requestId: string): Promise<Json> {
  await gw.settle();
  const records = (await gw.admin("GET", `/admin/requests?key=${keyId}&limit=1000`)).body.data;
  const record = records.find((entry: Json) => entry.id === requestId);
  assertOk(record, `no request record ${requestId}`);
  return record;
}

Deno.test(
  "body capture: off by default; on for a key it stores the request and the JSON answer, redacted",
  serverTest,
  async () => {
    await using s = await setupChat();
    const ask = () =>
      s.client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: `hello, my key is ${SECRET}` }],
      }).withResponse();

    const before = await ask();
    const beforeId = before.response.headers.get("x-request-id")!;
    assertEquals((await requestRecord(s.gw, s.keyId, beforeId)).captured, undefined);
    assertAdminError(
      await s.gw.admin("GET", `/admin/requests/${beforeId}/capture`),
      404,
      "capture_not_found",
    );

    const on = await s.gw.admin("POST", `/admin/keys/${s.keyId}/capture`, { minutes: 10 });
    assertEquals(on.status, 200, JSON.stringify(on.body));
    assertEquals([on.body.active, on.body.key_id], [true, s.keyId]);
    assertOk(Date.parse(on.body.until) > Date.now());
    assertEquals((await s.gw.admin("GET", `/admin/keys/${s.keyId}/capture`)).body, on.body);

    const { data, response } = await ask();
    const requestId = response.headers.get("x-request-id")!;
    assertEquals((await requestRecord(s.gw, s.keyId, requestId)).captured, true);
    const captured = await s.gw.admin("GET", `/admin/requests/${requestId}/capture`);
    assertEquals(captured.status, 200, JSON.stringify(captured.body));
    const capture = captured.body;
    assertEquals(
      [capture.request_id, capture.key_id, capture.model, capture.stream, capture.response_kind],
      [requestId, s.keyId, MODEL, false, "json"],
    );
    assertOk(!JSON.stringify(capture).includes(SECRET), "a secret was captured");
    const request = JSON.parse(capture.request_body);
    assertEquals(request.messages[0].content, "hello, my key is [redacted]");
    // The simulator echoes the prompt: the secret in the answer is redacted too.
    assertEquals(
      JSON.parse(capture.response_body),
      JSON.parse(JSON.stringify(data).replaceAll(SECRET, "[redacted]")),
    );
    assertEquals(capture.truncated, false);

    const off = await s.gw.admin("DELETE", `/admin/keys/${s.keyId}/capture`);
    assertEquals(off.status, 204);
    assertEquals((await s.gw.admin("GET", `/admin/keys/${s.keyId}/capture`)).body, {
      active: false,
      key_id: s.keyId,
    });
    const after = await ask();
    const afterId = after.response.headers.get("x-request-id")!;
    assertEquals((await requestRecord(s.gw, s.keyId, afterId)).captured, undefined);
    assertEquals((await s.gw.admin("GET", `/admin/requests/${afterId}/capture`)).status, 404);
  },
);

Deno.test(
  "body capture: a stream is captured as the text it delivered, in the client's own format",
  serverTest,
  async () => {
    await using s = await setupText();
    await s.gw.admin("POST", `/admin/keys/${s.keyId}/capture`, { minutes: 5 });
    const client = new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
    for (const model of [MODEL_OF.anthropic, MODEL_OF.openai]) {
      const { data: stream, response } = await client.messages.create({
        model,
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: "Tell me a story" }],
      }).withResponse();
      let text = "";
      for await (const event of stream) {
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
          text += event.delta.text;
        }
      }
      assertOk(text.length > 0);
      const requestId = response.headers.get("x-request-id")!;
      await s.gw.settle();
      const capture = (await s.gw.admin("GET", `/admin/requests/${requestId}/capture`)).body;
      assertEquals(
        [capture.stream, capture.response_kind, capture.response_body],
        [true, "stream_text", text],
        model,
      );
      assertEquals(JSON.parse(capture.request_body).model, model);
    }
  },
);

Deno.test(
  "body capture: it ends by itself when its time is up",
  serverTest,
  async () => {
    await using s = await setupChat();
    const on = await s.gw.admin("POST", `/admin/keys/${s.keyId}/capture`, { minutes: 0.02 });
    assertEquals(on.status, 200, JSON.stringify(on.body));
    for (let i = 0; i < 200; i++) {
      if (!(await s.gw.admin("GET", `/admin/keys/${s.keyId}/capture`)).body.active) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assertEquals((await s.gw.admin("GET", `/admin/keys/${s.keyId}/capture`)).body.active, false);
    const { response } = await s.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "hello" }],
    }).withResponse();
    const requestId = response.headers.get("x-request-id")!;
    assertEquals((await requestRecord(s.gw, s.keyId, requestId)).captured, undefined);
    assertEquals((await s.gw.admin("GET", `/admin/requests/${requestId}/capture`)).status, 404);
  },
);

Deno.test(
  "body capture: unknown keys and requests are 404, bad bodies 400",
  serverTest,
  async () => {
    await using s = await setupChat();
    for (const method of ["POST", "GET", "DELETE"]) {
      assertAdminError(
        await s.gw.admin(
          method,
          "/admin/keys/key_nonexistent/capture",
          method === "POST" ? { minutes: 5 } : undefined,
        ),
        404,
        "key_not_found",
      );
    }
    const path = `/admin/keys/${s.keyId}/capture`;
    for (
      const body of [{}, { minutes: 0 }, { minutes: "5" }, { minutes: 100_000 }, {
        minutes: 5,
        x: 1,
      }]
    ) {
      const refused = await s.gw.admin("POST", path, body);
      assertEquals(refused.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(refused.body)}`);
    }
    assertEquals((await s.gw.admin("GET", path)).body.active, false);
    for (const id of ["req_nonexistent", "not-a-request"]) {
      assertAdminError(
        await s.gw.admin("GET", `/admin/requests/${id}/capture`),
        404,
        "capture_not_found",
      );
    }
  },
);
