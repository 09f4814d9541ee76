import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { adminCurl, sdkSnippets } from "../../../routes/console/snippets.ts";
import { safeNext } from "../../../routes/console/console_env.ts";
import { contentSecurityPolicy } from "../../../routes/console/security_headers.ts";

Deno.test("sdkSnippets() gives each SDK the base URL form it takes", () => {
  const [openai, anthropic, google] = sdkSnippets("https://gw.example");
  assertOk(openai.code.includes(`baseURL: "https://gw.example/v1"`));
  assertOk(anthropic.code.includes(`baseURL: "https://gw.example"`));
  assertOk(google.code.includes(`baseUrl: "https://gw.example"`));
});

Deno.test("sdkSnippets() with a model goes on to a first request to it", () => {
  const [openai, anthropic, google] = sdkSnippets("https://gw.example", "gpt-test");
  assertOk(openai.code.includes(`client.chat.completions.create({\n  model: "gpt-test"`));
  assertOk(anthropic.code.includes(`client.messages.create({\n  model: "gpt-test"`));
  assertOk(google.code.includes(`generateContent({ model: "gpt-test"`));
  assertOk(!sdkSnippets("https://gw.example")[0].code.includes("create("), "no model: no call");
});

Deno.test("adminCurl() quotes the body for the shell and keeps the token in a variable", () => {
  assertEquals(
    adminCurl("https://gw.example", {
      method: "POST",
      path: "/admin/keys",
      body: { name: "it's" },
    }),
    `curl -X POST 'https://gw.example/admin/keys' \\\n` +
      `  -H "Authorization: Bearer $GATEWAY_ADMIN_TOKEN" \\\n` +
      `  -H 'content-type: application/json' \\\n` +
      `  -d '{"name":"it'\\''s"}'`,
  );
});

Deno.test("safeNext() keeps console paths and turns anything else into /console", () => {
  assertEquals(safeNext("/console/keys?sort=spend"), "/console/keys?sort=spend");
  for (
    const bad of [
      "https://evil.example",
      "//evil.example",
      "/admin/keys",
      "/consolex",
      "",
      null,
      "/console/\r\nset-cookie: x=1",
      "/console?a=\r\nb",
      "/console/\u0001",
      "/console/\u007f",
      "/console/a b",
      "/console/\t",
      "/console/é",
    ]
  ) {
    assertEquals(safeNext(bad), "/console", JSON.stringify(bad));
  }
});

Deno.test("contentSecurityPolicy() allows style and script by nonce only", () => {
  const csp = contentSecurityPolicy("abc");
  assertOk(csp.startsWith("default-src 'none'; style-src 'nonce-abc'; script-src 'nonce-abc'"));
  assertOk(csp.includes("frame-ancestors 'none'") && !csp.includes("unsafe"));
});
