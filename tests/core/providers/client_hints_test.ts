import { assertEquals } from "../../helpers/assert.ts";
import { NO_CLIENT_HINTS, readClientHints } from "../../../core/providers/client_hints.ts";

const url = new URL("https://gw.example/v1/messages");

Deno.test("readClientHints() reads repeated and comma-separated anthropic-beta values, each once", () => {
  const headers = new Headers();
  headers.append("anthropic-beta", "claude-code-20250219, oauth-2025-04-20");
  headers.append("anthropic-beta", "context-management-2025-06-27,,claude-code-20250219 ");
  headers.set("anthropic-version", "2023-06-01");
  assertEquals(readClientHints(headers, url), {
    anthropicVersion: "2023-06-01",
    anthropicBetas: ["claude-code-20250219", "oauth-2025-04-20", "context-management-2025-06-27"],
  });
});

Deno.test("readClientHints() takes vendor-version as the version and keeps ?beta=", () => {
  const hints = readClientHints(
    new Headers({ "vendor-version": "2026-10-21" }),
    new URL("https://gw.example/v1/messages/count_tokens?beta=true"),
  );
  assertEquals(hints, { anthropicVersion: "2026-10-21", anthropicBetas: [], betaQuery: "true" });
});

Deno.test("readClientHints() of a request without vendor headers is NO_CLIENT_HINTS", () => {
  assertEquals(
    readClientHints(new Headers({ authorization: "Bearer sk" }), url),
    NO_CLIENT_HINTS,
  );
});
