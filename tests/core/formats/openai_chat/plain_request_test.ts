import { isPlainChatRequest } from "../../../../core/formats/openai_chat/plain_request.ts";
import { chatRequestSchema } from "../../../../core/formats/openai_chat/request_schema.ts";
import { assertEquals, assertOk } from "../../../helpers/assert.ts";

/** Values each field is tried with, good and bad; `undefined` leaves the field out. */
const VALUES: Record<string, unknown[]> = {
  model: ["m", "", 3, null, undefined],
  messages: [
    [{ role: "user", content: "hi" }],
    [{ role: "assistant", content: null }, { role: "tool" }],
    [{ role: "user", content: [{ type: "text", text: "x" }] }],
    [],
    "hi",
    [["user"]],
    [null],
    [{ role: "robot", content: "x" }],
    [{ role: "user", content: 3 }],
    [{ role: "user", content: [{ text: "x" }] }],
    [{ role: "user", content: [null] }],
    undefined,
  ],
  stream: [true, false, null, "true", 1, undefined],
  stream_options: [
    { include_usage: true },
    { include_usage: null },
    {},
    null,
    [],
    { include_usage: 1 },
    "x",
    undefined,
  ],
  max_tokens: [1, 100, 0, -1, 1.5, 1e20, "5", null, Number.MAX_SAFE_INTEGER, undefined],
  max_completion_tokens: [7, 0, 2.5, null, undefined],
  n: [1, 128, 129, 0, 2.5, null, undefined],
  tools: [[{ type: "function" }], [], [{}], [{ type: 3 }], {}, null, [null], undefined],
};

function withField(body: Record<string, unknown>, field: string, value: unknown) {
  const out = { ...body };
  if (value === undefined) delete out[field];
  else out[field] = value;
  return out;
}

/** The valid base body with each field, then each pair of fields, through all its values. */
function* bodies(): Generator<Record<string, unknown>> {
  const fields = Object.keys(VALUES);
  const base: Record<string, unknown> = { model: "m", messages: [{ role: "user", content: "hi" }] };
  yield base;
  for (const field of fields) {
    for (const value of VALUES[field]) yield withField(base, field, value);
  }
  for (const a of fields) {
    for (const b of fields) {
      if (a >= b) continue;
      for (const x of VALUES[a]) {
        for (const y of VALUES[b]) yield withField(withField(base, a, x), b, y);
      }
    }
  }
}

Deno.test("plain chat request: agrees with the schema on every body tried", () => {
  let yes = 0;
  let total = 0;
  for (const body of bodies()) {
    total++;
    const plain = isPlainChatRequest(body);
    if (plain) yes++;
    assertEquals(plain, chatRequestSchema.safeParse(body).success, JSON.stringify(body));
  }
  assertOk(yes > 100 && total > 1000, `${yes} of ${total}`);
});
