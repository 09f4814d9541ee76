/**
 * Owners manage their account's members in the console: invite (the link shown once without
 * SMTP), change a role, remove; a plain member is refused; an existing member joins a second
 * account from the link and switches between accounts, and cannot switch into a stranger's.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway, type TestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { createAccount, memberClient, textOf } from "../../helpers/member_console.ts";

const PASSWORD = "a long enough password";

async function member(gw: TestGateway, email: string, account: string, role: string) {
  const invited = await gw.admin("POST", `/admin/accounts/${account}/invitations`, { email, role });
  assertEquals(invited.status, 201, JSON.stringify(invited.body));
  const token = new URL(invited.body.link).searchParams.get("token")!;
  await (await consoleClient(gw.url).post("/console/invitation", {
    token,
    name: email.split("@")[0],
    password: PASSWORD,
  })).body?.cancel();
  const client = memberClient(gw.url);
  await (await client.signInMember(email, PASSWORD)).body?.cancel();
  return client;
}

Deno.test(
  "console members: an owner invites, changes a role and removes; a member gets 403; bad inputs are form errors",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const account = await createAccount(gw, "C");
    const owner = await member(gw, "kim@example.com", account, "owner");
    const plain = await member(gw, "lee@example.com", account, "member");
    const refused = await plain.get("/console/members");
    assertEquals(refused.status, 403);
    await refused.body?.cancel();

    const page = await (await owner.get("/console/members")).text();
    assertOk(page.includes("lee@example.com") && page.includes("kim@example.com"));
    const bad = await owner.postMember("/console/members", { email: "nope", role: "member" });
    assertEquals(bad.status, 400);
    assertOk((await bad.text()).includes("must be an email address"));
    const badRole = await owner.postMember("/console/members", {
      email: "max@example.com",
      role: "boss",
    });
    assertEquals(badRole.status, 400);
    await badRole.body?.cancel();
    const invited = await owner.postMember("/console/members", {
      email: "max@example.com",
      role: "member",
    });
    assertEquals(invited.status, 201);
    const link = textOf(await invited.text(), "invitation-link");
    assertOk(link.startsWith(`${gw.url}/console/invitation?token=`), link);

    const lee = (await gw.admin("GET", "/admin/members?email=lee@example.com")).body.data[0].id;
    const promoted = await owner.postMember(`/console/members/${lee}/role`, { role: "owner" });
    assertEquals(promoted.status, 200);
    await promoted.body?.cancel();
    assertEquals((await plain.get("/console/members")).status, 200, "lee is an owner now");
    const removed = await owner.postMember(`/console/members/${lee}/remove`, {});
    assertEquals(removed.status, 200);
    await removed.body?.cancel();
    const gone = await plain.get("/console/members");
    assertEquals(gone.status, 403, "lee is no longer a member");
    await gone.body?.cancel();
    const audit = await gw.admin("GET", "/admin/audit?target_kind=account");
    const routes = audit.body.data.map((r: { actor: string; route: string }) => r.route);
    assertOk(routes.includes("/admin/accounts/:id/members/:memberId"), JSON.stringify(routes));
    assertOk(!JSON.stringify(audit.body).includes(new URL(link).searchParams.get("token")!));
  },
);

Deno.test(
  "console members: an existing member joins a second account from the link after sign-in and switches only into own accounts",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const first = await createAccount(gw, "D");
    const second = await createAccount(gw, "E");
    const strangers = await createAccount(gw, "Z");
    const nia = await member(gw, "nia@example.com", first, "owner");
    const invited = await gw.admin("POST", `/admin/accounts/${second}/invitations`, {
      email: "nia@example.com",
      role: "member",
    });
    const path = new URL(invited.body.link);
    const signedOut = await (await consoleClient(gw.url).get(`${path.pathname}${path.search}`))
      .text();
    assertOk(signedOut.includes("Sign in as nia@example.com"), "asks to sign in");
    const joinPage = await (await nia.get(`${path.pathname}${path.search}`)).text();
    assertOk(joinPage.includes("Join the account"));
    const joined = await nia.postMember("/console/invitation", {
      token: path.searchParams.get("token")!,
      join: "1",
    });
    assertEquals([joined.status, joined.headers.get("location")], [303, "/console/account"]);
    const account = await (await nia.get("/console/account")).text();
    assertOk(account.includes(second) && account.includes("Switch account"));
    const back = await nia.postMember("/console/account", { account_id: first });
    assertEquals(back.status, 303);
    assertOk((await (await nia.get("/console/account")).text()).includes("<dd>owner</dd>"));
    for (const account_id of [strangers, "acct_zzz"]) {
      const stranger = await nia.postMember("/console/account", { account_id });
      assertEquals(stranger.status, 403, account_id);
      await stranger.body?.cancel();
    }
  },
);
