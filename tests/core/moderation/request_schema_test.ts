import { assertEquals } from "../../helpers/assert.ts";
import { validate } from "../../../core/util/validate.ts";
import { moderationRequestSchema } from "../../../core/moderation/request_schema.ts";
import { GatewayError } from "../../../core/errors.ts";

Deno.test("moderation requests: OpenAI's default model and the three input shapes", () => {
  assertEquals(validate(moderationRequestSchema, { input: "hi" }), {
    input: "hi",
    model: "omni-moderation-latest",
  });
  assertEquals(validate(moderationRequestSchema, { input: ["a", "b"] }).input, ["a", "b"]);
  const parts = [
    { type: "text", text: "a" },
    { type: "image_url", image_url: { url: "https://example.com/a.png" } },
  ];
  assertEquals(validate(moderationRequestSchema, { input: parts }).input, parts);
});

Deno.test("moderation requests: bad input is named where it is", () => {
  const cases: Array<[unknown, string]> = [
    [{}, "input"],
    [{ input: "" }, "input"],
    [{ input: [] }, "input"],
    [{ input: 3 }, "input"],
    [{ input: ["a", ""] }, "input.1"],
    [{ input: [{ type: "text" }] }, "input.0.text"],
    [{ input: [{ type: "image_url", image_url: {} }] }, "input.0.image_url.url"],
    [{ input: Array.from({ length: 2049 }, () => "x") }, "input"],
  ];
  for (const [body, param] of cases) {
    let error: unknown;
    try {
      validate(moderationRequestSchema, body);
    } catch (thrown) {
      error = thrown;
    }
    assertEquals(error instanceof GatewayError && error.status, 400);
    assertEquals((error as GatewayError).param, param, JSON.stringify(body).slice(0, 80));
  }
});
