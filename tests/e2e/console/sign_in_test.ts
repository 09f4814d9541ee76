/**
 * Console sign-in over HTTP (no browser): signed-out visitors are sent to the sign-in page; the
 * admin token signs in as operator, a client key as its holder (disabled and expired keys are
 * refused); the session cookie's flags; throttled failures; sign-out; sessions in KV survive a
 * restart and work on a second instance; a holder cannot reach operator pages.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { tempDir } from "../../helpers/temp_dir.ts";

Deno.test(
  "console: a signed-out visitor to any page gets the sign-in page with a Token field and a Sign in button",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = consoleClient(gw.url);
    for (const path of ["/console", "/console/keys", "/console/keys/new", "/console/me"]) {
      const response = await client.get(path);
      await response.body?.cancel();
      assertEquals(response.status, 303, path);
      const location = response.headers.get("location") ?? "";
      assertOk(location.startsWith("/console/sign-in"), `${path} → ${location}`);
    }
    const page = await (await client.get("/console/sign-in")).text();
    assertOk(/<label for="token">Token<\/label>/.test(page), "a label Token");
    assertOk(/<input id="token" name="token" type="password"/.test(page), "a password field");
    assertOk(/<button type="submit">Sign in<\/button>/.test(page), "a Sign in button");
  },
);

Deno.test(
  "console: the admin token signs in as operator with an HttpOnly, SameSite=Strict, Path=/console cookie holding a random id",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = consoleClient(gw.url);
    const response = await client.signIn(ADMIN_TOKEN);
    assertEquals([response.status, response.headers.get("location")], [303, "/console"]);
    const cookie = response.headers.getSetCookie().find((line) =>
      line.startsWith("console_session=")
    )!;
    const parts = cookie.split(";").map((part) => part.trim());
    assertOk(parts.includes("HttpOnly") && parts.includes("SameSite=Strict"), cookie);
    assertOk(parts.includes("Path=/console"), cookie);
    assertOk(!parts.includes("Secure"), "not Secure over plain HTTP");
    assertOk(!cookie.includes(ADMIN_TOKEN), "the cookie never holds the token");
    assertEquals(client.cookie.length, "console_session=".length + 43);
    const keys = await client.get("/console/keys");
    assertEquals(keys.status, 200);
    assertOk((await keys.text()).includes('href="/console/audit"'), "the operator's nav");

    // KV holds the session under its hash, never the cookie's id.
    const id = client.cookie.split("=")[1];
    using kv = await Deno.openKv(gw.kvPath);
    for await (const entry of kv.list({ prefix: ["console_sessions"] })) {
      assertOk(!JSON.stringify(entry).includes(id), "the session id is not stored");
    }
  },
);

Deno.test(
  "console: behind GATEWAY_PUBLIC_URL https the session cookie is Secure",
  serverTest,
  async () => {
    await using gw = await startTestGateway({ GATEWAY_PUBLIC_URL: "https://gw.example" });
    const response = await fetch(`${gw.url}/console/sign-in`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: ADMIN_TOKEN }),
    });
    await response.body?.cancel();
    assertEquals(response.status, 303);
    const cookie = response.headers.getSetCookie().join("\n");
    assertOk(/console_session=[^;]+;.*Secure/.test(cookie), cookie);
  },
);

Deno.test(
  "console: a client key signs in as its holder, sees My key, and gets 403 on operator pages",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { key } = await gw.createKey({ name: "holder key", balance: 3_000_000 });
    const client = consoleClient(gw.url);
    const response = await client.signIn(key);
    assertEquals([response.status, response.headers.get("location")], [303, "/console/me"]);
    const me = await client.get("/console/me");
    const html = await me.text();
    assertEquals(me.status, 200);
    assertOk(
      html.includes("holder key") && html.includes("$3.000000"),
      "the key's name and balance",
    );
    assertOk(!html.includes('href="/console/keys"'), "no operator nav");
    assertOk(!html.includes(key), "the secret is never shown to the holder");
    for (const path of ["/console/keys", "/console/keys/new", "/console", "/console/channels"]) {
      const refused = await client.get(path);
      const text = await refused.text();
      assertEquals(refused.status, 403, path);
      assertOk(text.includes("This page is for the gateway"), path);
    }
    const post = await client.post("/console/keys", { name: "sneaky" });
    await post.body?.cancel();
    assertEquals(post.status, 403);
    const list = await gw.admin("GET", "/admin/keys");
    assertEquals(list.body.data.length, 1, "no key was created");
  },
);

Deno.test(
  "console: disabled and expired keys and wrong tokens are refused at sign-in, with no session",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const disabled = await gw.createKey({ name: "off", enabled: false });
    const expired = await gw.createKey({ name: "old", expires_at: "2020-01-01T00:00:00Z" });
    const cases: Array<[string, number, string]> = [
      [disabled.key, 401, "This key is disabled"],
      [expired.key, 401, "This key has expired"],
      ["not-the-token", 401, "The token is not valid"],
      ["sk-gw-nothing", 401, "The token is not valid"],
      ["", 401, "The token is not valid"],
    ];
    for (const [token, status, message] of cases) {
      const client = consoleClient(gw.url);
      const response = await client.signIn(token);
      const html = await response.text();
      assertEquals(response.status, status, token);
      assertOk(html.includes(message), `${token}: ${message}`);
      assertEquals(client.cookie, "", `${token}: no session`);
    }
  },
);

Deno.test(
  "console: a holder's session ends once its key is disabled",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id, key } = await gw.createKey({ name: "soon off" });
    const client = consoleClient(gw.url);
    await (await client.signIn(key)).body?.cancel();
    assertEquals((await (await client.get("/console/me")).text()).includes("soon off"), true);
    await gw.admin("PATCH", `/admin/keys/${id}`, { enabled: false });
    const after = await client.get("/console/me");
    await after.body?.cancel();
    assertEquals(after.status, 303);
    await gw.admin("PATCH", `/admin/keys/${id}`, { enabled: true });
    const again = await client.get("/console/me");
    await again.body?.cancel();
    assertEquals(again.status, 303, "the ended session stays ended");
  },
);

Deno.test(
  "console: failed sign-ins are throttled like API authentication: 429 page with retry-after",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    for (let i = 0; i < 10; i++) {
      const response = await consoleClient(gw.url).signIn(`wrong-${i}`);
      await response.body?.cancel();
      assertEquals(response.status, 401, `failure ${i}`);
    }
    const blocked = await consoleClient(gw.url).signIn("wrong-again");
    const html = await blocked.text();
    assertEquals(blocked.status, 429);
    assertOk(Number(blocked.headers.get("retry-after")) >= 1, "retry-after");
    assertOk(html.includes("Too many failed authentication attempts"), "says why");
    assertOk(blocked.headers.get("content-security-policy")?.includes("default-src 'none'"));
    const good = consoleClient(gw.url);
    const response = await good.signIn(ADMIN_TOKEN);
    await response.body?.cancel();
    assertEquals(response.status, 303, "the valid token still signs in");
  },
);

Deno.test(
  "console: sign-out deletes the session; the old cookie no longer signs anyone in",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const client = consoleClient(gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
    const cookie = client.cookie;
    const out = await client.post("/console/sign-out", {});
    await out.body?.cancel();
    assertEquals([out.status, out.headers.get("location")], [303, "/console/sign-in"]);
    const replay = await fetch(`${gw.url}/console/keys`, {
      redirect: "manual",
      headers: { cookie },
    });
    await replay.body?.cancel();
    assertEquals(replay.status, 303);
    using kv = await Deno.openKv(gw.kvPath);
    const left = await Array.fromAsync(kv.list({ prefix: ["console_sessions"] }));
    assertEquals(left.length, 0);
  },
);

Deno.test(
  "console: a session survives a gateway restart on the same KV file and works on a second instance",
  serverTest,
  async () => {
    await using dir = await tempDir({ prefix: "console-restart-" });
    const env = { GATEWAY_KV: `${dir.path}/gateway.kv` };
    let cookie: string;
    {
      await using first = await startTestGateway(env);
      const client = consoleClient(first.url);
      await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
      cookie = client.cookie;
      await using second = await startTestGateway(env);
      const there = await fetch(`${second.url}/console/keys`, { headers: { cookie } });
      await there.body?.cancel();
      assertEquals(there.status, 200, "the other instance knows the session");
    }
    await using restarted = await startTestGateway(env);
    const response = await fetch(`${restarted.url}/console/keys`, {
      redirect: "manual",
      headers: { cookie },
    });
    await response.body?.cancel();
    assertEquals(response.status, 200);
  },
);

Deno.test(
  "console: a next with CR LF, another control character or non-ASCII text is dropped for /console, never a 500",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const nexts = [
      "/console/keys\r\nset-cookie: stolen=1",
      "/console/\r\nx",
      "/console/keys?x=\r\nset-cookie: stolen=1",
      "/console/\u0001",
      "/console/\u007f",
      "/console/\u0000",
      "/console/keys\tx",
      "/console/模",
      "/console/keys x",
    ];
    for (const next of nexts) {
      const what = JSON.stringify(next);
      // Signed out: the sign-in page keeps where to go next in its form.
      const signedOut = consoleClient(gw.url);
      const page = await signedOut.get(`/console/sign-in?next=${encodeURIComponent(next)}`);
      const html = await page.text();
      assertEquals(page.status, 200, `${what}: ${html.slice(0, 200)}`);
      assertOk(html.includes('name="next" value="/console"'), `${what}: the form's next`);
      // Signing in with it, and being signed in already, redirect to /console.
      const response = await signedOut.post("/console/sign-in", { token: ADMIN_TOKEN, next }, {
        csrf: null,
      });
      await response.body?.cancel();
      assertEquals([response.status, response.headers.get("location")], [303, "/console"], what);
      const signedIn = consoleClient(gw.url);
      await (await signedIn.signIn(ADMIN_TOKEN)).body?.cancel();
      const again = await signedIn.get(`/console/sign-in?next=${encodeURIComponent(next)}`);
      await again.body?.cancel();
      assertEquals([again.status, again.headers.get("location")], [303, "/console"], what);
      const theme = await signedIn.post("/console/theme", { theme: "dark", next });
      await theme.body?.cancel();
      assertEquals([theme.status, theme.headers.get("location")], [303, "/console"], what);
    }
  },
);
