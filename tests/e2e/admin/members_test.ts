/**
 * The admin API of members: invitations (the link in the answer without SMTP, never in the audit
 * log), finding members, role changes and removal, reset links, sign-up codes; every bad input a
 * 4xx in the admin envelope, and an invitation into an account that does not exist a 404 that
 * stores nothing.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertAdminError } from "../../helpers/admin_error.ts";
import { serverTest, startTestGateway, type TestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { kvKeys } from "../../../core/kv/kv_keys.ts";
import { createAccount, memberClient } from "../../helpers/member_console.ts";

const PASSWORD = "a long enough password";

async function acceptInvitation(gw: TestGateway, link: string, name: string) {
  const token = new URL(link).searchParams.get("token")!;
  const answer = await consoleClient(gw.url).post("/console/invitation", {
    token,
    name,
    password: PASSWORD,
  });
  assertEquals(answer.status, 200);
  await answer.body?.cancel();
}

Deno.test(
  "admin members: without SMTP the invitation answer carries the link (once), and the audit record does not",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const account = await createAccount(gw, "A");
    const invited = await gw.admin("POST", `/admin/accounts/${account}/invitations`, {
      email: " Fay@Example.com ",
      role: "member",
    });
    assertEquals(invited.status, 201);
    assertEquals(invited.body.sent, false);
    assertEquals(invited.body.email, "fay@example.com");
    assertEquals(invited.body.role, "member");
    assertEquals(invited.body.account_id, account);
    assertOk(Date.parse(invited.body.expires_at) > Date.now() + 6.9 * 86_400_000, "7 days");
    assertOk(invited.body.link.startsWith(`${gw.url}/console/invitation?token=`));
    const token = new URL(invited.body.link).searchParams.get("token")!;

    const audit = await gw.admin("GET", "/admin/audit?target_kind=account");
    const invitations = audit.body.data.filter((r: { route: string }) =>
      r.route === "/admin/accounts/:id/invitations"
    );
    assertEquals(invitations.length, 1, "the invitation is audited once");
    assertEquals(invitations[0].target.id, account);
    assertOk(!JSON.stringify(audit.body).includes(token), "no token in the audit log");

    await acceptInvitation(gw, invited.body.link, "Fay");
    const found = await gw.admin("GET", "/admin/members?email=FAY@example.com");
    assertEquals(found.status, 200);
    assertEquals(found.body.data.length, 1);
    const member = found.body.data[0];
    assertOk(/^mem_/.test(member.id));
    assertEquals([member.name, member.totp_enabled], ["Fay", false]);
    assertEquals(member.memberships.map((m: { account_id: string }) => m.account_id), [account]);
    assertOk(!JSON.stringify(found.body).includes("argon2"), "no password hash");
    assertEquals((await gw.admin("GET", "/admin/members?email=nobody@example.com")).body.data, []);
  },
);

Deno.test(
  "admin members: bad email, wrong role, unknown field, bad ids → 4xx in the admin envelope; an unknown account → 404 and nothing stored",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const real = await createAccount(gw, "A");
    const invite = (body: unknown, account = real) =>
      gw.admin("POST", `/admin/accounts/${account}/invitations`, body);
    assertAdminError(
      await invite({ email: "not-an-email", role: "member" }),
      400,
      "invalid_request",
    );
    assertAdminError(
      await invite({ email: "g@example.com", role: "boss" }),
      400,
      "invalid_request",
    );
    assertAdminError(await invite({ email: "g@example.com" }), 400, "invalid_request");
    assertAdminError(
      await invite({ email: "g@example.com", role: "member", extra: 1 }),
      400,
      "invalid_request",
    );
    assertAdminError(
      await invite({ email: "g@example.com", role: "member" }, "nope"),
      404,
      "account_not_found",
    );
    const missing = await invite({ email: "g@example.com", role: "member" }, "acct_0missing");
    assertOk(assertAdminError(missing, 404, "account_not_found").includes("acct_0missing"));
    assertEquals(missing.body.error.type, "invalid_request_error");
    assertAdminError(
      await gw.admin("PATCH", `/admin/accounts/${real}/members/mem_x`, { role: "boss" }),
      400,
      "invalid_request",
    );
    assertAdminError(
      await gw.admin("PATCH", `/admin/accounts/${real}/members/nope`, { role: "owner" }),
      404,
      "member_not_found",
    );
    assertAdminError(
      await gw.admin("DELETE", `/admin/accounts/${real}/members/mem_x`),
      404,
      "membership_not_found",
    );
    assertAdminError(
      await gw.admin("POST", "/admin/signup-codes", { uses: 0 }),
      400,
      "invalid_request",
    );

    // None of these made an invitation, a member or an account.
    const tokens = [];
    for await (
      const entry of gw.running.gateway.kv.list({ prefix: kvKeys.memberToken("").slice(0, 1) })
    ) {
      tokens.push(entry.key);
    }
    assertEquals(tokens, [], "no invitation stored");
    assertEquals((await gw.admin("GET", "/admin/members")).body.data, []);
    assertAdminError(
      await gw.admin("GET", "/admin/accounts/acct_0missing"),
      404,
      "account_not_found",
    );
    assertEquals(
      (await gw.admin("GET", "/admin/accounts")).body.data.map((a: { id: string }) => a.id),
      [real],
    );
  },
);

Deno.test(
  "admin members: change a role, keep the last owner, remove a member; a reset link from the operator works once",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const account = await createAccount(gw, "B");
    for (const [email, role] of [["gil@example.com", "owner"], ["hal@example.com", "member"]]) {
      const invited = await gw.admin("POST", `/admin/accounts/${account}/invitations`, {
        email,
        role,
      });
      await acceptInvitation(gw, invited.body.link, email.split("@")[0]);
    }
    const idOf = async (email: string) =>
      (await gw.admin("GET", `/admin/members?email=${email}`)).body.data[0].id as string;
    const gil = await idOf("gil@example.com");
    const hal = await idOf("hal@example.com");
    assertAdminError(
      await gw.admin("PATCH", `/admin/accounts/${account}/members/${gil}`, { role: "member" }),
      409,
      "last_owner",
    );
    const promoted = await gw.admin("PATCH", `/admin/accounts/${account}/members/${hal}`, {
      role: "owner",
    });
    assertEquals([promoted.status, promoted.body.role], [200, "owner"]);
    const removed = await gw.admin("DELETE", `/admin/accounts/${account}/members/${gil}`);
    assertEquals(removed.status, 204);
    const left = await gw.admin("GET", `/admin/members?email=gil@example.com`);
    assertEquals(left.body.data[0].memberships, []);

    const reset = await gw.admin("POST", `/admin/members/${hal}/reset-link`);
    assertEquals([reset.status, reset.body.sent], [201, false]);
    const token = new URL(reset.body.link).searchParams.get("token")!;
    const client = consoleClient(gw.url);
    const set = await client.post("/console/reset", { token, password: "hal's new password" });
    assertEquals(set.status, 200);
    await set.body?.cancel();
    const hal2 = memberClient(gw.url);
    const signedIn = await hal2.signInMember("hal@example.com", "hal's new password");
    assertEquals(signedIn.status, 303);
    const audit = await gw.admin("GET", "/admin/audit?target_kind=member");
    assertOk(!JSON.stringify(audit.body).includes(token), "no reset token in the audit log");
  },
);

Deno.test(
  "self sign-up: off by default (404); on, an invite code makes a member who owns a new account, and its uses run out",
  serverTest,
  async () => {
    {
      await using off = await startTestGateway();
      const page = await consoleClient(off.url).get("/console/sign-up");
      assertEquals(page.status, 404);
      await page.body?.cancel();
    }
    await using gw = await startTestGateway({ GATEWAY_SIGNUP: "1" });
    const made = await gw.admin("POST", "/admin/signup-codes", { uses: 1 });
    assertEquals(made.status, 201);
    const code = made.body.signup_code as string;
    assertOk(/^signup-\w+$/.test(code), code);
    const audit = await gw.admin("GET", "/admin/audit");
    assertOk(audit.body.data.some((r: { route: string }) => r.route === "/admin/signup-codes"));
    assertOk(!JSON.stringify(audit.body).includes(code), "no sign-up code in the audit log");
    const visitor = consoleClient(gw.url);
    const fields = { code, name: "Ivy", email: "ivy@example.com", password: PASSWORD };
    const bad = await visitor.post("/console/sign-up", { ...fields, code: "signup-wrong" });
    assertEquals(bad.status, 400);
    await bad.body?.cancel();
    const signedUp = await visitor.post("/console/sign-up", fields);
    assertEquals([signedUp.status, signedUp.headers.get("location")], [303, "/console/account"]);
    const member = (await gw.admin("GET", "/admin/members?email=ivy@example.com")).body.data[0];
    assertEquals(member.memberships.length, 1);
    assertEquals(member.memberships[0].role, "owner");
    assertOk(/^acct_/.test(member.memberships[0].account_id));
    const used = await consoleClient(gw.url).post("/console/sign-up", {
      ...fields,
      email: "jo@example.com",
    });
    assertEquals(used.status, 400, "the code's one use is taken");
    await used.body?.cancel();
  },
);
