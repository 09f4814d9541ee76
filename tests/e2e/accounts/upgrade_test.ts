/**
 * The upgrade to accounts on a KV file the previous release wrote (tests/fixtures/kv, made by
 * make_previous_release.ts): every key becomes the only key of an account of its own that takes
 * over its balance, ledger, group and credit floor; Σ entries = balance still holds; the keys
 * keep working; a second boot, or two instances booting at once, upgrade nothing twice.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import { tempDir } from "../../helpers/temp_dir.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const FIXTURE = new URL("../../fixtures/kv/", import.meta.url);
const expected: {
  keys: Record<string, { id: string; key: string; balance: number }>;
} = JSON.parse(await Deno.readTextFile(new URL("previous_release.json", FIXTURE)));

async function copyOfFixture(dir: string): Promise<string> {
  const path = `${dir}/previous_release.kv`;
  await Deno.copyFile(new URL("previous_release.kv", FIXTURE), path);
  await Deno.copyFile(new URL("previous_release.kv.secret", FIXTURE), `${path}.secret`);
  return path;
}

Deno.test(
  "upgrade: a previous release's KV file — each key gets an account of its own with its balance and ledger; Σ holds; keys keep working",
  serverTest,
  async () => {
    await using dir = await tempDir();
    const kvPath = await copyOfFixture(dir.path);
    await using upstream = startOpenAIChatUpstream();
    const [gw, twin] = await Promise.all([
      startTestGateway({ GATEWAY_KV: kvPath }),
      startTestGateway({ GATEWAY_KV: kvPath }),
    ]);
    try {
      const accounts = (await gw.admin("GET", "/admin/accounts?limit=100")).body.data as Json[];
      assertEquals(accounts.length, Object.keys(expected.keys).length, JSON.stringify(accounts));
      for (const [name, old] of Object.entries(expected.keys)) {
        const key = (await gw.admin("GET", `/admin/keys/${old.id}`)).body;
        assertEquals(key.wallet_id, old.id);
        const account = (await gw.admin("GET", `/admin/accounts/${key.account_id}`)).body;
        assertEquals(account.wallet_id, old.id, name);
        assertEquals(account.name, name);
        assertEquals(account.balance, old.balance, name);
        assertEquals(account.keys, 1);
        assertEquals(account.unlimited, name === "unlimited");
        assertEquals(account.credit_limit, name === "floor" ? 5_000 : 0);
        const verified = (await gw.admin("GET", `/admin/accounts/${account.id}/ledger/verify`))
          .body;
        assertOk(verified.ok, JSON.stringify(verified));
        assertEquals(verified.balance, old.balance);
        assertOk(verified.entries > 0);
        // The key's own view and its ledger are its account's.
        assertEquals(key.balance, old.balance);
        const keyVerified = (await gw.admin("GET", `/admin/keys/${old.id}/ledger/verify`)).body;
        assertEquals([keyVerified.ok, keyVerified.entries], [true, verified.entries]);
      }
      // The keys still work, and pay from their accounts.
      await gw.putModel("gpt-test", { kind: "text", price: TEST_TEXT_PRICE });
      await gw.admin(
        "PATCH",
        "/admin/channels/" + (await gw.admin("GET", "/admin/channels"))
          .body.data[0].id,
        { base_url: upstream.baseUrl },
      );
      const funded = expected.keys.funded;
      const client = new OpenAI({ apiKey: funded.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
      await client.chat.completions.create({
        model: "gpt-test",
        messages: [{ role: "user", content: "after the upgrade" }],
      });
      await gw.settle();
      const after = (await gw.admin("GET", `/admin/keys/${funded.id}`)).body;
      assertOk(after.balance < funded.balance);
      assertEquals(await gw.assertLedgerInvariant(funded.id), after.balance);
      const disabled = new OpenAI({
        apiKey: expected.keys.disabled.key,
        baseURL: `${gw.url}/v1`,
        maxRetries: 0,
      });
      const refused = await disabled.models.list().catch((error) => error);
      assertEquals([refused.status, refused.error?.code], [401, "key_disabled"]);
    } finally {
      await twin.close();
      await gw.close();
    }
    // A second boot upgrades nothing again.
    await using again = await startTestGateway({ GATEWAY_KV: kvPath });
    const accounts = (await again.admin("GET", "/admin/accounts?limit=100")).body.data;
    assertEquals(accounts.length, Object.keys(expected.keys).length);
  },
);
