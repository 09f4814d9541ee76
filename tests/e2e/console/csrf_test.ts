/**
 * Cross-site requests to the console: a POST from a foreign Origin, with a cross-site
 * Sec-Fetch-Site or Referer and no Origin, or without this session's CSRF token is refused with
 * 403 and changes nothing.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";

async function post(
  url: string,
  { cookie, headers, fields }: {
    cookie: string;
    headers: Record<string, string>;
    fields: Record<string, string>;
  },
) {
  const response = await fetch(`${url}/console/keys`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, html: await response.text() };
}

Deno.test(
  "console CSRF: foreign Origin, cross-site Sec-Fetch-Site or Referer, or a wrong token get 403 and create nothing",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = consoleClient(gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const csrf = await client.csrf();
    const fields = { name: "csrf victim", balance: "1000000", csrf };
    const cases: Array<[string, Record<string, string>, Record<string, string>, string]> = [
      ["foreign Origin", { origin: "https://evil.example" }, fields, "Refused a cross-site"],
      ["null Origin", { origin: "null" }, fields, "Refused a cross-site"],
      ["cross-site fetch", { "sec-fetch-site": "cross-site" }, fields, "Refused a cross-site"],
      ["foreign Referer", { referer: "https://evil.example/page" }, fields, "Refused a cross"],
      ["wrong token", { origin: gw.url }, { ...fields, csrf: "x".repeat(32) }, "CSRF token"],
      ["no token", { origin: gw.url }, { name: "csrf victim" }, "CSRF token"],
    ];
    for (const [name, headers, body, message] of cases) {
      const { status, html } = await post(gw.url, { cookie: client.cookie, headers, fields: body });
      assertEquals(status, 403, name);
      assertOk(html.includes(message), `${name}: ${html.slice(-600)}`);
    }
    assertEquals((await gw.admin("GET", "/admin/keys")).body.data.length, 0, "no key created");
    const audit = await gw.admin("GET", "/admin/audit");
    assertEquals(audit.body.data.length, 0, "nothing was even attempted");

    // The same form from the gateway's own origin goes through.
    const own = await post(gw.url, { cookie: client.cookie, headers: { origin: gw.url }, fields });
    assertEquals(own.status, 303);
    assertEquals((await gw.admin("GET", "/admin/keys")).body.data.length, 1);
  },
);

Deno.test(
  "console CSRF: sign-in and sign-out from a foreign origin are refused",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const signIn = await consoleClient(gw.url).post(
      "/console/sign-in",
      { token: ADMIN_TOKEN },
      { origin: "https://evil.example", csrf: null },
    );
    assertEquals(signIn.status, 403);
    assertEquals(signIn.headers.getSetCookie().length, 0, "no session for a login CSRF");
    await signIn.body?.cancel();

    const client = consoleClient(gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const out = await client.post("/console/sign-out", {}, { origin: "https://evil.example" });
    await out.body?.cancel();
    assertEquals(out.status, 403);
    const still = await client.get("/console/keys");
    await still.body?.cancel();
    assertEquals(still.status, 200, "still signed in");
  },
);
