/** Every console response, page, redirect or error, carries the security headers. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";

function assertSecurityHeaders(response: Response, what: string) {
  const csp = response.headers.get("content-security-policy") ?? "";
  for (
    const part of [
      "default-src 'none'",
      "style-src 'nonce-",
      "script-src 'nonce-",
      "img-src 'self' data:",
      "media-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ]
  ) assertOk(csp.includes(part), `${what}: CSP lacks ${part}: ${csp}`);
  assertOk(!csp.includes("unsafe-inline"), `${what}: no unsafe-inline`);
  assertEquals(response.headers.get("x-frame-options"), "DENY", what);
  assertEquals(response.headers.get("referrer-policy"), "same-origin", what);
  assertEquals(response.headers.get("x-content-type-options"), "nosniff", what);
  assertEquals(response.headers.get("cache-control"), "no-store", what);
}

Deno.test(
  "console: CSP, X-Frame-Options, Referrer-Policy, nosniff and no-store on every response",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id, key } = await gw.createKey({ name: "k" });
    const visitor = consoleClient(gw.url);
    const operator = consoleClient(gw.url);
    const signIn = await operator.signIn(ADMIN_TOKEN);
    await signIn.body?.cancel();
    assertSecurityHeaders(signIn, "sign-in POST");
    const holder = consoleClient(gw.url);
    await (await holder.signIn(key)).body?.cancel();
    const visits: Array<[string, typeof visitor, string, number]> = [
      ["signed out", visitor, "/console/keys", 303],
      ["signed out", visitor, "/console/sign-in", 200],
      ["operator", operator, "/console", 200],
      ["operator", operator, "/console/keys", 200],
      ["operator", operator, "/console/keys/new", 200],
      ["operator", operator, `/console/keys/${id}`, 200],
      ["operator", operator, "/console/keys/key_nothere", 404],
      ["operator", operator, "/console/keys?limit=0", 400],
      ["operator", operator, "/console/nothing", 404],
      ["holder", holder, "/console/me", 200],
      ["holder", holder, "/console/keys", 403],
    ];
    for (const [who, client, path, status] of visits) {
      const response = await client.get(path);
      const html = await response.text();
      assertEquals(response.status, status, `${who} ${path}`);
      assertSecurityHeaders(response, `${who} ${path}`);
      if (status !== 303) {
        const nonce = response.headers.get("content-security-policy")!.match(/nonce-(\w+)/)![1];
        assertOk(html.includes(`<style nonce="${nonce}">`), `${who} ${path}: the style's nonce`);
        assertOk(!/ style="/.test(html), `${who} ${path}: no inline style attribute`);
      }
    }
    const refused = await visitor.post("/console/sign-in", { token: "x" }, {
      origin: "https://evil.example",
      csrf: null,
    });
    await refused.body?.cancel();
    assertSecurityHeaders(refused, "refused POST");
  },
);
