import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { isErrorEventData, StreamRedactor } from "../../../core/upstream/stream_redactor.ts";

const KEY = "sk-channel-key-0123456789";
const SPACED = [...KEY].join(" ");

Deno.test("isErrorEventData() knows each format's error event, and not an `error: null` field", () => {
  const errors = [
    { error: { message: "m", type: "server_error", param: null, code: null } }, // chat
    { type: "error", sequence_number: 3, code: "server_error", message: "m", param: null },
    { type: "response.failed", response: { id: "r", error: { code: "c", message: "m" } } },
    { type: "error", error: { type: "overloaded_error", message: "m" } }, // anthropic
    { error: { code: 503, message: "m", status: "UNAVAILABLE" } }, // gemini
    { error: "m" }, // OpenAI-compatible upstreams that send a bare string
  ];
  for (const body of errors) assertOk(isErrorEventData(JSON.stringify(body)), JSON.stringify(body));
  assertOk(isErrorEventData('{ "error" : { "message": "m" } }'));
  const others = [
    { type: "response.created", response: { id: "r", error: null, status: "in_progress" } },
    { choices: [{ delta: { content: 'an "error" in the text' } }] },
    { type: "content_block_delta", delta: { type: "text_delta", text: "error" } },
  ];
  for (const body of others) {
    assertOk(!isErrorEventData(JSON.stringify(body)), JSON.stringify(body));
  }
});

Deno.test("StreamRedactor: an error event loses the key in any form and stays JSON", () => {
  const redactor = new StreamRedactor([KEY, "sk-other-key-of-the-channel"]);
  const data = JSON.stringify({
    type: "error",
    error: {
      type: "authentication_error",
      message: `bad key ${SPACED}; or sk-other-key-of-the-channel`,
    },
  });
  const event = redactor.event({ event: "error", data, id: undefined });
  assertEquals(event.event, "error");
  assertEquals(JSON.parse(event.data), {
    type: "error",
    error: { type: "authentication_error", message: "bad key [redacted]; or [redacted]" },
  });
});

Deno.test("StreamRedactor: other events lose the key as written, and are kept as they came otherwise", () => {
  const redactor = new StreamRedactor([KEY]);
  const quoting = { data: JSON.stringify({ choices: [{ delta: { content: `it is ${KEY}` } }] }) };
  assertEquals(
    JSON.parse(redactor.event(quoting).data).choices[0].delta.content,
    "it is [redacted]",
  );
  const plain = { data: JSON.stringify({ choices: [{ delta: { content: SPACED } }] }) };
  assertOk(redactor.event(plain) === plain, "an event with no key as written is the same object");
  assertEquals(redactor.message(`failed: ${SPACED}`), "failed: [redacted]");
});
