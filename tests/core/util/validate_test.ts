import { z } from "zod";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { GatewayError } from "../../../core/errors.ts";
import { validate } from "../../../core/util/validate.ts";

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    assertOk(error instanceof GatewayError);
    return error;
  }
  throw new Error("not refused");
}

Deno.test("validate(): an unknown field is a 400 naming that field, nested too", () => {
  const schema = z.strictObject({ name: z.string(), limits: z.strictObject({ day: z.int() }) });
  const top = refusal(() => validate(schema, { name: "x", limits: { day: 1 }, colour: "red" }));
  assertEquals([top.status, top.param], [400, "colour"]);
  assertOk(top.message.includes("Unknown field 'colour'"), top.message);
  const nested = refusal(() => validate(schema, { name: "x", limits: { day: 1, week: 2 } }));
  assertEquals(nested.param, "limits.week");
  const two = refusal(() => validate(schema, { name: "x", limits: { day: 1 }, a: 1, b: 2 }));
  assertOk(two.message.includes("and 1 more"), two.message);
  assertEquals(refusal(() => validate(schema, { name: 1, limits: { day: 1 } })).param, "name");
});
