/**
 * The journey, end to end with real parts: the operator creates an account and invites an
 * owner; the invitation goes through a real SMTP server process; the owner sets a password from
 * the mailed link, signs in, creates two keys in the token management area and uses them with the
 * openai and anthropic SDKs; the wallet is debited by the sum of the receipts; one key's cap
 * refuses it while the other still works; a redeemed code raises the balance once, and 100
 * concurrent redemptions of one code on two instances credit it once.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";
import { linkIn, startSmtpServer } from "../../helpers/smtp_server.ts";
import { type MemberClient, memberClient, postRaw, textOf } from "../../helpers/member_console.ts";

import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const PASSWORD = "correct horse battery staple";
const MODEL = "gpt-test";

Deno.test(
  "journey: invited owner signs in through the mailed link, makes two keys, uses both SDKs; wallet = Σ receipts; a cap refuses one key only; a code redeems once",
  serverTest,
  async () => {
    await using smtp = await startSmtpServer();
    await using upstream = startOpenAIChatUpstream();
    await using gw = await startTestGateway({
      GATEWAY_SMTP_URL: smtp.url,
      GATEWAY_MAIL_FROM: "Gateway <noreply@gateway.test>",
    });
    await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
    await gw.addChannel({
      name: "sim",
      type: "openai",
      base_url: upstream.baseUrl,
      keys: ["sk-upstream-test"],
      models: [MODEL],
    });

    // The operator: an account with 2.00, and its owner invited by mail.
    const account =
      (await gw.admin("POST", "/admin/accounts", { name: "Acme", balance: 2_000_000 }))
        .body;
    const invited = await gw.admin("POST", `/admin/accounts/${account.id}/invitations`, {
      email: "owner@acme.test",
      role: "owner",
    });
    assertEquals([invited.status, invited.body.sent], [201, true], JSON.stringify(invited.body));
    const link = linkIn(await smtp.nextMailTo("owner@acme.test"));
    const token = new URL(link).searchParams.get("token")!;
    const visitor = memberClient(gw.url);
    const accepted = await visitor.post("/console/invitation", {
      token,
      name: "Olive",
      password: PASSWORD,
    });
    assertEquals(accepted.status, 200);
    await accepted.body?.cancel();

    // The owner signs in and makes two keys, one with a small daily cap.
    const owner = memberClient(gw.url);
    const signedIn = await owner.signInMember("owner@acme.test", PASSWORD);
    assertEquals(signedIn.status, 303);
    const makeKey = async (fields: Record<string, string>) => {
      const made = await postRaw(
        gw.url,
        owner,
        "/console/account/keys",
        new URLSearchParams(fields),
      );
      await made.body?.cancel();
      assertEquals(made.status, 303);
      const created = await (await owner.get(made.headers.get("location")!)).text();
      return textOf(created, "secret");
    };
    const webKey = await makeKey({ name: "web", enabled: "true" });
    // A cap of 0.00006 (60 units) a day, typed in currency as the form takes it.
    const batchKey = await makeKey({ name: "batch", enabled: "true", cap_day: "0.00006" });
    assertOk(webKey.startsWith("sk-gw-") && batchKey.startsWith("sk-gw-"));

    const openai = new OpenAI({ apiKey: webKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: batchKey, baseURL: gw.url, maxRetries: 0 });
    await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Hello from the web app" }],
    });
    await anthropic.messages.create({
      model: MODEL,
      max_tokens: 10,
      messages: [{ role: "user", content: "Hi" }],
    });
    await gw.settle();
    const logged = (await gw.admin("GET", `/admin/requests?account=${account.id}`)).body.data;
    assertEquals(logged.length, 2);
    const receipts = logged.reduce((sum: number, record: Json) => sum + record.receipt.amount, 0);
    const afterUse = (await gw.admin("GET", `/admin/accounts/${account.id}`)).body.balance;
    assertEquals(
      afterUse,
      2_000_000 - receipts,
      "the wallet is debited by the sum of the receipts",
    );

    // The capped key is refused (what is left of its day cap cannot cover the request); the
    // other key still works.
    const capped = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: "user", content: "Again" }],
    }).catch((error) => error);
    assertEquals(capped.status, 402, String(capped));
    const still = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Still here?" }],
    });
    assertOk(still.choices[0].message.content);

    // A code redeemed in the console raises the balance once.
    await gw.settle();
    const before = (await gw.admin("GET", `/admin/accounts/${account.id}`)).body.balance;
    const batch = await gw.admin("POST", "/admin/redemption-batches", {
      name: "welcome",
      amount: 5_000_000,
      count: 1,
    });
    const code = batch.body.codes[0].code as string;
    const redeemed = await owner.postMember("/console/account/wallet/redeem", { code });
    await redeemed.body?.cancel();
    assertEquals(redeemed.status, 303);
    const again = await owner.postMember("/console/account/wallet/redeem", { code });
    await again.body?.cancel();
    assertEquals(again.status, 409);
    const after = (await gw.admin("GET", `/admin/accounts/${account.id}`)).body.balance;
    assertEquals(after, before + 5_000_000);
    const verified = (await gw.admin("GET", `/admin/accounts/${account.id}/ledger/verify`)).body;
    assertOk(verified.ok, JSON.stringify(verified));
  },
);

Deno.test(
  "journey: 100 concurrent redemptions of one code through two instances credit it exactly once",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await using other = await startTestGateway({ GATEWAY_KV: gw.kvPath });
    const account = (await gw.admin("POST", "/admin/accounts", { name: "Acme" })).body;
    const members: MemberClient[] = [];
    for (const [index, instance] of [gw, other].entries()) {
      const invited = await gw.admin("POST", `/admin/accounts/${account.id}/invitations`, {
        email: `owner${index}@acme.test`,
        role: "owner",
      });
      const token = new URL(invited.body.link).searchParams.get("token")!;
      const accepted = await memberClient(gw.url).post("/console/invitation", {
        token,
        name: `Owner ${index}`,
        password: PASSWORD,
      });
      await accepted.body?.cancel();
      const client = memberClient(instance.url);
      await client.signInMember(`owner${index}@acme.test`, PASSWORD);
      members.push(client);
    }
    const batch = await gw.admin("POST", "/admin/redemption-batches", {
      name: "race",
      amount: 1_000_000,
      count: 1,
    });
    const code = batch.body.codes[0].code as string;
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const answer = await members[i % 2].postMember("/console/account/wallet/redeem", { code });
        await answer.body?.cancel();
        return answer.status;
      }),
    );
    assertEquals(statuses.filter((status) => status === 303).length, 1, JSON.stringify(statuses));
    assertOk(statuses.every((status) => status === 303 || status === 409 || status === 429));
    const view = (await gw.admin("GET", `/admin/accounts/${account.id}`)).body;
    assertEquals(view.balance, 1_000_000);
    const ledger = (await gw.admin("GET", `/admin/accounts/${account.id}/ledger`)).body.data;
    assertEquals(ledger.filter((entry: Json) => entry.type === "credit").length, 1);
  },
);
