/**
 * Settings → Personal access tokens in the console: create (the secret shown once, with a Copy
 * button), the list (name, prefix, created, last used, expires), revoke; bad input is a form
 * error; a form without its CSRF token is refused; each change is audited without the secret;
 * tokens are per account viewed, and another member's token cannot be revoked.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import {
  accountApi,
  accountApiGateway,
  assertOpenAIError,
  createAccount,
  memberWithToken,
  signedInMember,
  tokenFromSettings,
} from "../../helpers/account_api.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test(
  "console tokens: create shows the secret once, the list shows its prefix and last use, revoke stops it; audited without the secret",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const account = await createAccount(gw);
    const { client } = await signedInMember(gw, account.id, "dee@example.com", "owner");
    const empty = await (await client.get("/console/settings")).text();
    assertOk(empty.includes("Personal access tokens") && empty.includes("No token yet."));

    const created = await client.postMember("/console/settings/tokens", {
      name: "deploy script",
      expires_in_days: "7",
    });
    assertEquals(created.status, 303);
    const location = created.headers.get("location")!;
    const page = await (await client.get(location)).text();
    const secret = page.match(/id="secret" class="secret">(gwpat-[0-9A-Za-z]{43})</)?.[1];
    assertOk(secret, page);
    assertOk(page.includes('data-copy="secret"'), "a Copy button");
    assertOk(page.includes(`/v1/account`), "how to use it");
    const again = await (await client.get(location)).text();
    assertOk(!again.includes(secret) && again.includes("shown once"), "shown once only");

    assertEquals((await accountApi(gw, secret)("GET")).status, 200);
    const listed = await (await client.get("/console/settings")).text();
    assertOk(listed.includes("deploy script") && listed.includes(`${secret.slice(0, 10)}…`));
    assertOk(!listed.includes(secret), "the list never holds the secret");
    assertOk(!listed.includes("never</td><td>never"), "last use and expiry are shown");
    const expires = listed.match(/<td>(\d{4}-\d{2}-\d{2}T[^<]+)<\/td><td><form/)?.[1];
    const days = (Date.parse(expires!) - Date.now()) / 86_400_000;
    assertOk(days > 6.9 && days <= 7, `expires in 7 days: ${expires}`);

    const id = listed.match(/name="id" value="(pat_[0-9A-Za-z]+)"/)![1];
    const revoked = await client.postMember("/console/settings/tokens/revoke", { id });
    assertEquals(revoked.status, 200);
    assertOk((await revoked.text()).includes("The token is revoked."));
    assertOpenAIError(await accountApi(gw, secret)("GET"), 401, "invalid_access_token");
    assertOk((await (await client.get("/console/settings")).text()).includes("No token yet."));

    const audit = (await gw.admin("GET", "/admin/audit?target_kind=access_token")).body.data;
    assertEquals(
      audit.map((r: Json) => `${r.method} ${r.route} ${r.status}`).reverse(),
      ["POST /console/settings/tokens 201", "POST /console/settings/tokens/revoke 200"],
    );
    assertOk(audit.every((r: Json) => r.actor.startsWith("console:")));
    assertEquals(audit[0].target.id, id);
    assertOk(!JSON.stringify(audit).includes(secret), "no secret in the audit log");
  },
);

Deno.test(
  "console tokens: bad name or life is a form error, no CSRF token is 403, another member's token is not found; tokens are per account",
  serverTest,
  async () => {
    await using s = await accountApiGateway();
    const { gw } = s;
    const a = await createAccount(gw, { name: "a" });
    const b = await createAccount(gw, { name: "b" });
    const eve = await memberWithToken(gw, a.id, "eve@example.com", "owner");
    const { client } = await signedInMember(gw, a.id, "fay@example.com", "member");

    const noName = await client.postMember("/console/settings/tokens", {
      name: " ",
      expires_in_days: "30",
    });
    assertEquals(noName.status, 400);
    assertOk((await noName.text()).includes("name"));
    const badLife = await client.postMember("/console/settings/tokens", {
      name: "x",
      expires_in_days: "10000",
    });
    assertEquals(badLife.status, 400);
    assertOk((await badLife.text()).includes("Choose one of the lives offered"));
    const noCsrf = await client.post("/console/settings/tokens", { name: "x" }, { csrf: null });
    assertEquals(noCsrf.status, 403);
    await noCsrf.body?.cancel();
    assertOk((await (await client.get("/console/settings")).text()).includes("No token yet."));

    const eveSettings = await (await eve.client.get("/console/settings")).text();
    const eveTokenId = eveSettings.match(/name="id" value="(pat_[0-9A-Za-z]+)"/)![1];
    const stranger = await client.postMember("/console/settings/tokens/revoke", { id: eveTokenId });
    assertEquals(stranger.status, 404);
    await stranger.body?.cancel();
    assertEquals((await accountApi(gw, eve.token)("GET")).status, 200, "eve's token still works");

    // A token belongs to the account viewed when it was made.
    const invited = await gw.admin("POST", `/admin/accounts/${b.id}/invitations`, {
      email: "fay@example.com",
      role: "owner",
    });
    const token = new URL(invited.body.link).searchParams.get("token")!;
    const joined = await client.postMember("/console/invitation", { token, join: "1" });
    assertEquals(joined.status, 303);
    assertEquals((await client.postMember("/console/account", { account_id: a.id })).status, 303);
    const inA = await tokenFromSettings(client, "for a");
    assertEquals((await client.postMember("/console/account", { account_id: b.id })).status, 303);
    assertOk((await (await client.get("/console/settings")).text()).includes("No token yet."));
    const inB = await tokenFromSettings(client, "for b");
    const readA = (await accountApi(gw, inA)("GET")).body;
    const readB = (await accountApi(gw, inB)("GET")).body;
    assertEquals([readA.id, readA.role], [a.id, "member"]);
    assertEquals([readB.id, readB.role], [b.id, "owner"]);
  },
);
