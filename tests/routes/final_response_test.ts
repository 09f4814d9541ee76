import { finalResponse } from "../../routes/final_response.ts";
import { assertEquals } from "../helpers/assert.ts";

const request = () =>
  new Request("http://gateway/v1/chat/completions", { method: "POST", body: "{}" });

Deno.test("final response: a header value Deno cannot write is dropped, the rest kept", async () => {
  const response = new Response("{}", {
    status: 200,
    headers: { "x-bad": "a\u0001b", "x-good": "ok", "content-type": "application/json" },
  });
  const final = finalResponse(response, request(), undefined);
  assertEquals(final.status, 200);
  assertEquals(final.headers.get("x-bad"), null);
  assertEquals(final.headers.get("x-good"), "ok");
  assertEquals(await final.text(), "{}");
});

Deno.test("final response: an ordinary answer goes out as it is", () => {
  const response = new Response("{}", { headers: { "x-gateway-ignored-fields": "seed,%01" } });
  assertEquals(finalResponse(response, request(), undefined), response);
});

Deno.test("final response: 408 and 413 say connection: close; other errors do not", () => {
  for (const status of [408, 413]) {
    const final = finalResponse(new Response("{}", { status }), request(), undefined);
    assertEquals(final.headers.get("connection"), "close", `${status}`);
  }
  for (const status of [400, 401, 429, 502]) {
    const final = finalResponse(new Response("{}", { status }), request(), undefined);
    assertEquals(final.headers.get("connection"), null, `${status}`);
  }
});
