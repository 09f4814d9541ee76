import { assertEquals, assertOk } from "../../../helpers/assert.ts";
import { GatewayError } from "../../../../core/errors.ts";
import { searchTerm } from "../../../../routes/console/pages/search.tsx";

const term = (query: string) => searchTerm(new URL(`http://gw/console/search${query}`));

function refusal(query: string): GatewayError {
  try {
    term(query);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error(`${query} was taken`);
}

Deno.test("searchTerm: trimmed, and a prefix copied with its ellipsis loses it", () => {
  assertEquals(term("?q=%20alice%20"), "alice");
  assertEquals(term("?q=sk-gw-Ab3d%E2%80%A6"), "sk-gw-Ab3d");
});

Deno.test("searchTerm: empty, overlong, twice or a key's secret is a 400 naming q", () => {
  for (const query of ["", "?q=", "?q=%20%20", `?q=${"x".repeat(201)}`, "?q=a&q=b"]) {
    const error = refusal(query);
    assertEquals([error.status, error.param], [400, "q"], query);
  }
  const secret = `sk-gw-${"A1b2C3".repeat(7)}X`;
  const error = refusal(`?q=${secret}`);
  assertEquals(error.status, 400);
  assertOk(!error.message.includes(secret), "the secret is not repeated");
});
