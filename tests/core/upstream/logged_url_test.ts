import { assertEquals } from "../../helpers/assert.ts";
import { loggedUrl } from "../../../core/upstream/failover.ts";

Deno.test("loggedUrl() keeps no query, fragment or user:password@ of an attempt's URL", () => {
  assertEquals(
    loggedUrl("https://api.example.com/v1beta/models/m:streamGenerateContent?alt=sse&key=AIzaX"),
    "https://api.example.com/v1beta/models/m:streamGenerateContent",
  );
  assertEquals(
    loggedUrl("https://user:pa55@api.example.com/v1/chat/completions#x"),
    "https://api.example.com/v1/chat/completions",
  );
  assertEquals(loggedUrl("http://pa55@127.0.0.1:9/v1/x?u=a@b"), "http://127.0.0.1:9/v1/x");
  assertEquals(loggedUrl(undefined), null);
});
