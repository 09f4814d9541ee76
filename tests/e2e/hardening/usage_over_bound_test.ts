/**
 * An upstream whose believable usage exceeds the request's bound (it ignored max_tokens in its
 * count) is charged what the receipt says, on every text interface, streamed or not, whether
 * the key aggregates its charges or holds and settles: the receipt's amount is what the ledger
 * took. Where the credit floor stops the charge, the rest is the receipt's `shortfall`, summed
 * on the key, and the balance ends exactly at −credit_limit.
 */

import { shownAmount } from "../../helpers/console_money.ts";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, type TestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, MODEL_OF, setupChat, setupText, type TextSetup } from "../../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The output tokens every request allows. */
const MAX_TOKENS = 8;
/** What each simulator reports on top of what it wrote: over the bound, still believable. */
const EXTRA_OUTPUT_TOKENS = 600;

/** Sends one request of each text interface, streamed and not, with the key `key`. */
async function sendEveryInterface(s: TextSetup, key: string): Promise<void> {
  const openai = new OpenAI({ apiKey: key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: key, baseURL: s.gw.url, maxRetries: 0 });
  const gemini = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: s.gw.url } });
  const content = "Tell me a long story about a lighthouse keeper";
  const chat = { model: MODEL_OF.openai, max_tokens: MAX_TOKENS };
  await openai.chat.completions.create({ ...chat, messages: [{ role: "user", content }] });
  for await (
    const _ of await openai.chat.completions.create({
      ...chat,
      stream: true,
      messages: [{ role: "user", content }],
    })
  );
  const responses = { model: MODEL_OF["openai-responses"], max_output_tokens: MAX_TOKENS };
  await openai.responses.create({ ...responses, input: content });
  for await (
    const _ of await openai.responses.create({ ...responses, stream: true, input: content })
  );
  const messages = { model: MODEL_OF.anthropic, max_tokens: MAX_TOKENS };
  await anthropic.messages.create({ ...messages, messages: [{ role: "user", content }] });
  for await (
    const _ of await anthropic.messages.create({
      ...messages,
      stream: true,
      messages: [{ role: "user", content }],
    })
  );
  const generate = {
    model: MODEL_OF.gemini,
    contents: content,
    config: { maxOutputTokens: MAX_TOKENS },
  };
  await gemini.models.generateContent(generate);
  for await (const _ of await gemini.models.generateContentStream(generate));
}

/** The request records of `keyId`, once every charge is written. */
async function recordsOf(gw: TestGateway, keyId: string): Promise<Json[]> {
  await gw.settle();
  return (await gw.admin("GET", `/admin/requests?key=${keyId}&limit=100`)).body.data;
}

/**
 * Asserts that each record's receipt is what the ledger took for it: the sum of its shares of
 * aggregated `charge` entries (whose requests' shares add up to each entry's cost), or its hold
 * and settle; and that the ledger's sum is the balance.
 */
async function assertReceiptsAreLedger(gw: TestGateway, keyId: string, records: Json[]) {
  const entries = await gw.ledger(keyId) as Json[];
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  for (const record of records) {
    const { receipt } = record;
    const label = `${record.interface}${record.stream ? " stream" : ""}`;
    let taken = 0;
    for (const share of receipt.ledger_shares) {
      const entry = byId.get(share.id);
      assertOk(entry, `${label}: entry ${share.id} is in the ledger`);
      taken -= entry.type === "charge" ? share.amount : entry.amount;
      if (entry.type === "charge") assertEquals(entry.ref === record.id, false, label);
      else assertEquals(entry.ref, record.id, label);
    }
    assertEquals(receipt.amount, taken, `${label}: receipt amount = what the ledger took`);
    assertEquals([receipt.charged, receipt.shortfall, record.cost], [taken, 0, taken], label);
    assertOk(receipt.formula.endsWith(`= ${receipt.amount}`), receipt.formula);
  }
  for (const entry of entries.filter((entry) => entry.type === "charge")) {
    const naming = records.filter((record) => record.receipt.ledger_entry_ids.includes(entry.id));
    const shares = naming.flatMap((record) =>
      record.receipt.ledger_shares.filter((share: Json) => share.id === entry.id)
    );
    assertEquals(shares.length, entry.requests, `requests of ${entry.id}`);
    assertEquals(
      0 - shares.reduce((sum: number, share: Json) => sum + share.amount, 0),
      entry.cost,
    );
    assertEquals(entry.amount, -entry.cost);
  }
  await gw.assertLedgerInvariant(keyId);
}

async function assertChargedAsReceipts(s: TextSetup, key: { id: string; key: string }) {
  for (const upstream of [s.chat, s.responses, s.anthropic, s.gemini]) {
    upstream.options.extraOutputTokens = EXTRA_OUTPUT_TOKENS;
  }
  await sendEveryInterface(s, key.key);
  const records = await recordsOf(s.gw, key.id);
  assertEquals(records.length, 8);
  for (const record of records) {
    assertEquals(record.usage_source, "upstream", record.interface);
    assertOk(record.receipt.units.output_tokens > MAX_TOKENS, "usage over the bound, believed");
  }
  await assertReceiptsAreLedger(s.gw, key.id, records);
  const view = (await s.gw.admin("GET", `/admin/keys/${key.id}`)).body;
  assertEquals(view.shortfall_total, 0);
}

Deno.test(
  "usage over the bound: every interface, streamed or not, charged in aggregate what each receipt says",
  serverTest,
  async () => {
    await using s = await setupText();
    const key = await s.gw.createKey({ balance: 10_000_000 });
    await assertChargedAsReceipts(s, key);
    const records = await recordsOf(s.gw, key.id);
    assertOk(records.every((record) => record.receipt.status === "charged"));
  },
);

Deno.test(
  "usage over the bound: every interface, streamed or not, a capped key's settle takes what each receipt says",
  serverTest,
  async () => {
    await using s = await setupText();
    const key = await s.gw.createKey({ balance: 10_000_000, spend_limits: { month: 9_000_000 } });
    await assertChargedAsReceipts(s, key);
    const records = await recordsOf(s.gw, key.id);
    assertOk(records.every((record) => record.receipt.status === "settled"));
  },
);

/** A chat request whose usage, over its bound, costs more than the key has down to its floor. */
async function overTheFloor(options: { key: Record<string, unknown> }) {
  const s = await setupChat({ balance: 1_000, key: { credit_limit: 500, ...options.key } });
  s.upstream.options.extraOutputTokens = 1_000;
  const answer = await s.client.chat.completions.create({
    model: MODEL,
    max_tokens: 4,
    messages: [{ role: "user", content: "Go on and on" }],
  });
  assertOk(answer.usage!.completion_tokens > 1_000, "the upstream counted past the bound");
  const [record] = await recordsOf(s.gw, s.keyId);
  return { s, record };
}

for (
  const [label, key] of [
    ["aggregated", {}],
    ["hold and settle", { spend_limits: { month: 1_000_000 } }],
  ] as const
) {
  Deno.test(
    `usage over the bound (${label}): the credit floor stops the charge, the rest is the receipt's shortfall, summed on the key`,
    serverTest,
    async () => {
      const { s, record } = await overTheFloor({ key });
      await using _ = s;
      const { receipt } = record;
      assertEquals(record.usage_source, "upstream");
      // 1,000 units and 500 of credit: 1,500 taken, the rest left as shortfall.
      assertEquals(receipt.charged, 1_500);
      assertEquals(record.cost, 1_500);
      assertEquals(receipt.shortfall, receipt.amount - 1_500);
      assertOk(receipt.shortfall > 0, `shortfall ${receipt.shortfall}`);
      const taken = 0 -
        receipt.ledger_shares.reduce((sum: number, share: Json) => sum + share.amount, 0);
      assertEquals(taken, receipt.charged);
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), -500);
      const entries = await s.gw.ledger(s.keyId) as Json[];
      const lowest = Math.min(...entries.map((entry) => entry.balance_after));
      assertEquals(lowest, -500, "never below the floor");
      const closing = entries.find((entry) => entry.type === "charge" || entry.type === "settle")!;
      assertEquals(closing.shortfall, receipt.shortfall);
      const view = (await s.gw.admin("GET", `/admin/keys/${s.keyId}`)).body;
      assertEquals([view.balance, view.shortfall_total], [-500, receipt.shortfall]);
      const console = consoleClient(s.gw.url);
      await (await console.signIn(ADMIN_TOKEN)).body?.cancel();
      const page = await (await console.get(`/console/keys/${s.keyId}`)).text();
      assertOk(
        page.includes(`${shownAmount(receipt.shortfall)} <span class="muted">(uncollected`),
        "on the console's page",
      );
    },
  );
}
