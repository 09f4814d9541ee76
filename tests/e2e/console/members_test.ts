/**
 * Members in the console, end to end with a real SMTP server process: an invitation mailed by the
 * operator, the link followed to set a password, sign-in at /console/sign-in, the second factor
 * enrolled and used, "Forgot password" by mail, the session id rotated at sign-in, "Sign out
 * everywhere else", throttled sign-in, and members kept off operator pages.
 */

import { Secret, TOTP } from "otpauth";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway, type TestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { ADMIN_TOKEN } from "../../helpers/gateway.ts";
import { linkIn, startSmtpServer } from "../../helpers/smtp_server.ts";
import { createAccount, memberClient, textOf } from "../../helpers/member_console.ts";

const PASSWORD = "a long enough password";

const codeAt = (secret: string, timestamp: number) =>
  new TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: Secret.fromBase32(secret) })
    .generate({ timestamp });

/** Invites `email` into a new account without SMTP and sets the password through the returned link. */
async function memberWithoutMail(gw: TestGateway, email: string) {
  const account = await createAccount(gw, "Team");
  const invited = await gw.admin("POST", `/admin/accounts/${account}/invitations`, {
    email,
    role: "owner",
  });
  assertEquals(invited.status, 201, JSON.stringify(invited.body));
  const token = new URL(invited.body.link).searchParams.get("token")!;
  const client = consoleClient(gw.url);
  const accepted = await client.post("/console/invitation", {
    token,
    name: "Ana",
    password: PASSWORD,
  });
  assertEquals(accepted.status, 200, await accepted.text());
}

Deno.test(
  "members: an invitation mailed through real SMTP, password set from the link, sign-in, TOTP enrolled, then password + TOTP",
  serverTest,
  async () => {
    await using smtp = await startSmtpServer();
    await using gw = await startTestGateway({
      GATEWAY_SMTP_URL: smtp.url,
      GATEWAY_MAIL_FROM: "Gateway <noreply@gateway.test>",
    });
    const team = await createAccount(gw, "Team");
    const invited = await gw.admin("POST", `/admin/accounts/${team}/invitations`, {
      email: "Ana@Example.com",
      role: "owner",
    });
    assertEquals(invited.status, 201, JSON.stringify(invited.body));
    assertEquals(invited.body.email, "ana@example.com");
    assertEquals(invited.body.sent, true);
    assertEquals(invited.body.link, undefined, "a mailed link is not in the answer");
    assertOk(/^inv_/.test(invited.body.id));

    const mail = await smtp.nextMailTo("ana@example.com");
    assertEquals(mail.from, "noreply@gateway.test");
    assertEquals(mail.user, "test", "the gateway authenticated with the URL's user");
    const link = linkIn(mail);
    assertOk(link.startsWith(`${gw.url}/console/invitation?token=`), link);

    const visitor = memberClient(gw.url);
    const form = await (await fetch(link)).text();
    assertOk(form.includes("Accept and set password"), "the invitation form");
    const token = new URL(link).searchParams.get("token")!;
    const short = await visitor.post("/console/invitation", {
      token,
      name: "Ana",
      password: "short",
    });
    assertEquals(short.status, 400);
    assertOk((await short.text()).includes("at least 10 characters"), "a form error");
    const accepted = await visitor.post("/console/invitation", {
      token,
      name: "Ana",
      password: PASSWORD,
    });
    assertEquals(accepted.status, 200);
    assertOk((await accepted.text()).includes("Your password is set"));
    const again = await visitor.post("/console/invitation", {
      token,
      name: "Eve",
      password: PASSWORD,
    });
    assertEquals(again.status, 404, "the link works once");
    await again.body?.cancel();

    const ana = memberClient(gw.url);
    const signedIn = await ana.signInMember("ANA@example.com", PASSWORD);
    assertEquals([signedIn.status, signedIn.headers.get("location")], [303, "/console/account"]);
    const account = await (await ana.get("/console/account")).text();
    assertOk(account.includes(team) && account.includes("owner"), "the account and role");

    const started = await ana.postMember("/console/settings/totp/start", {});
    const enrolPage = await started.text();
    const secret = textOf(enrolPage, "totp-secret");
    assertOk(textOf(enrolPage, "totp-uri").startsWith("otpauth://totp/"), "the otpauth URI");
    const now = Date.now();
    const confirmed = await ana.postMember("/console/settings/totp/confirm", {
      code: codeAt(secret, now),
    });
    assertEquals(confirmed.status, 200);
    const codes = textOf(await confirmed.text(), "recovery-codes").trim().split("\n");
    assertEquals(codes.length, 10);

    const signedOut = await ana.postMember("/console/sign-out", {});
    assertEquals(signedOut.status, 303);
    await signedOut.body?.cancel();
    ana.cookie = "";

    const first = await ana.signInMember("ana@example.com", PASSWORD);
    assertEquals(first.status, 303);
    assertOk(first.headers.get("location")!.startsWith("/console/sign-in/second-factor"));
    assertEquals(first.headers.getSetCookie().some((c) => c.startsWith("console_session=")), false);
    const reused = await ana.secondFactor(codeAt(secret, now));
    assertEquals(reused.status, 401, "a code used once is refused in its window");
    await reused.body?.cancel();
    const passed = await ana.secondFactor(codeAt(secret, now + 30_000));
    assertEquals([passed.status, passed.headers.get("location")], [303, "/console/account"]);
    assertEquals((await ana.get("/console/account")).status, 200);

    // A recovery code works once in place of a code.
    ana.cookie = "";
    await (await ana.signInMember("ana@example.com", PASSWORD)).body?.cancel();
    const recovered = await ana.secondFactor(codes[0].toUpperCase());
    assertEquals(recovered.status, 303);
    ana.cookie = "";
    await (await ana.signInMember("ana@example.com", PASSWORD)).body?.cancel();
    const spent = await ana.secondFactor(codes[0]);
    assertEquals(spent.status, 401);
    await spent.body?.cancel();
  },
);

Deno.test(
  "members: Forgot password mails a link that works once; the answer is the same for an unknown email",
  serverTest,
  async () => {
    await using smtp = await startSmtpServer();
    await using gw = await startTestGateway({
      GATEWAY_SMTP_URL: smtp.url,
      GATEWAY_MAIL_FROM: "noreply@gateway.test",
    });
    const team = await createAccount(gw, "Team");
    const invited = await gw.admin("POST", `/admin/accounts/${team}/invitations`, {
      email: "bo@example.com",
      role: "member",
    });
    const token = new URL(linkIn(await smtp.nextMailTo("bo@example.com"))).searchParams.get(
      "token",
    )!;
    assertEquals(invited.status, 201);
    const visitor = consoleClient(gw.url);
    await (await visitor.post("/console/invitation", { token, name: "Bo", password: PASSWORD }))
      .body?.cancel();

    const known = await visitor.post("/console/forgot", { email: "bo@example.com" });
    const unknown = await visitor.post("/console/forgot", { email: "nobody@example.com" });
    assertEquals([known.status, unknown.status], [200, 200]);
    const strip = (page: string) => page.replace(/nonce="[^"]+"/g, "");
    assertEquals(strip(await known.text()), strip(await unknown.text()), "the same answer");

    const link = linkIn(await smtp.nextMailTo("bo@example.com"));
    assertOk(link.startsWith(`${gw.url}/console/reset?token=`), link);
    assertEquals(smtp.mails.filter((m) => m.to.includes("nobody@example.com")).length, 0);
    const resetToken = new URL(link).searchParams.get("token")!;
    const short = await visitor.post("/console/reset", { token: resetToken, password: "short1" });
    assertEquals(short.status, 400, "a short password is a form error and keeps the link");
    await short.body?.cancel();
    const reset = await visitor.post("/console/reset", {
      token: resetToken,
      password: "a brand new password",
    });
    assertEquals(reset.status, 200);
    await reset.body?.cancel();
    const twice = await visitor.post("/console/reset", {
      token: resetToken,
      password: "another new password",
    });
    assertEquals(twice.status, 404, "the link works once");
    await twice.body?.cancel();

    const bo = memberClient(gw.url);
    const old = await bo.signInMember("bo@example.com", PASSWORD);
    assertEquals(old.status, 401);
    await old.body?.cancel();
    const fresh = await bo.signInMember("bo@example.com", "a brand new password");
    assertEquals(fresh.status, 303);
  },
);

Deno.test(
  "members: sign-in rotates the session id; Sign out everywhere else ends the other session",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await memberWithoutMail(gw, "cy@example.com");
    const laptop = memberClient(gw.url);
    await (await laptop.signIn(ADMIN_TOKEN)).body?.cancel();
    const before = laptop.cookie;
    assertOk(before.startsWith("console_session="));
    await (await laptop.signInMember("cy@example.com", PASSWORD)).body?.cancel();
    assertOk(laptop.cookie !== before, "a fresh session id at sign-in");
    const stale = await fetch(`${gw.url}/console/account`, {
      redirect: "manual",
      headers: { cookie: before },
    });
    assertEquals(stale.status, 303, "the session from before sign-in is gone");
    await stale.body?.cancel();

    const phone = memberClient(gw.url);
    await (await phone.signInMember("cy@example.com", PASSWORD)).body?.cancel();
    assertEquals((await phone.get("/console/account")).status, 200);
    const settings = await (await laptop.get("/console/settings")).text();
    assertEquals((settings.match(/<td><code>/g) ?? []).length, 2, "both sessions listed");
    const ended = await laptop.postMember("/console/settings/sign-out-others", {});
    assertOk((await ended.text()).includes("Signed out 1 other session"));
    const phonePage = await phone.get("/console/account");
    assertEquals(phonePage.status, 303, "the other session is ended");
    await phonePage.body?.cancel();
    assertEquals((await laptop.get("/console/account")).status, 200, "this one stays");
  },
);

Deno.test(
  "members: repeated wrong passwords give 429 (even for the right one then); unknown email and wrong password answer alike",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await memberWithoutMail(gw, "di@example.com");
    const client = memberClient(gw.url);
    const unknown = await client.signInMember("nobody@example.com", PASSWORD);
    const wrong = await client.signInMember("di@example.com", "not the password");
    assertEquals([unknown.status, wrong.status], [401, 401]);
    const problem = (page: string) => page.match(/<p class="error" role="alert">([^<]*)</)?.[1];
    assertEquals(problem(await unknown.text()), problem(await wrong.text()));
    for (let i = 0; i < 4; i++) {
      await (await client.signInMember("di@example.com", `wrong ${i}`)).body?.cancel();
    }
    const blocked = await client.signInMember("di@example.com", PASSWORD);
    assertEquals(blocked.status, 429);
    assertOk(Number(blocked.headers.get("retry-after")) > 0);
    assertOk((await blocked.text()).includes("Too many failed sign-ins"));
  },
);

Deno.test(
  "members: a member is refused every operator page and the admin API; members pages are refused to the operator",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await memberWithoutMail(gw, "ed@example.com");
    const ed = memberClient(gw.url);
    await (await ed.signInMember("ed@example.com", PASSWORD)).body?.cancel();
    const home = await ed.get("/console");
    assertEquals([home.status, home.headers.get("location")], [303, "/console/account"]);
    for (
      const path of [
        "/console/keys",
        "/console/keys/new",
        "/console/channels",
        "/console/models",
        "/console/requests",
        "/console/tasks",
        "/console/webhooks",
        "/console/audit",
        "/console/me",
      ]
    ) {
      const page = await ed.get(path);
      assertEquals(page.status, 403, path);
      await page.body?.cancel();
    }
    const post = await ed.postMember("/console/keys/new", { name: "x" });
    assertEquals(post.status, 403);
    await post.body?.cancel();
    const admin = await fetch(`${gw.url}/admin/members`, { headers: { cookie: ed.cookie } });
    assertEquals(admin.status, 401);
    await admin.body?.cancel();

    const operator = consoleClient(gw.url);
    await (await operator.signIn(ADMIN_TOKEN)).body?.cancel();
    for (const path of ["/console/settings", "/console/members", "/console/account"]) {
      const page = await operator.get(path);
      assertEquals(page.status, 403, path);
      await page.body?.cancel();
    }
  },
);

Deno.test(
  "members: Forgot password mails one email at most 3 times in 15 minutes; the page answers the same",
  serverTest,
  async () => {
    await using smtp = await startSmtpServer();
    await using gw = await startTestGateway({
      GATEWAY_SMTP_URL: smtp.url,
      GATEWAY_MAIL_FROM: "noreply@gateway.test",
    });
    const team = await createAccount(gw, "Team");
    const invited = await gw.admin("POST", `/admin/accounts/${team}/invitations`, {
      email: "flo@example.com",
      role: "member",
    });
    assertEquals(invited.status, 201);
    const token = new URL(linkIn(await smtp.nextMailTo("flo@example.com"))).searchParams.get(
      "token",
    )!;
    const visitor = consoleClient(gw.url);
    await (await visitor.post("/console/invitation", { token, name: "Flo", password: PASSWORD }))
      .body?.cancel();
    for (let i = 0; i < 5; i++) {
      const asked = await visitor.post("/console/forgot", { email: "flo@example.com" });
      assertEquals(asked.status, 200);
      assertOk((await asked.text()).includes("If this email belongs to a member"));
    }
    // Each answer came after the SMTP server took its mail, and the server prints mails in order:
    // once this later mail is seen, every reset mail sent before it has been seen too.
    await gw.admin("POST", `/admin/accounts/${team}/invitations`, {
      email: "barrier@example.com",
      role: "member",
    });
    await smtp.nextMailTo("barrier@example.com");
    const resets = smtp.mails.filter((m) =>
      m.to.includes("flo@example.com") && m.subject.includes("Reset")
    );
    assertEquals(resets.length, 3);
  },
);
