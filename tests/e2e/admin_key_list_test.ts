/**
 * `GET /admin/keys` end to end: filters (name prefix, group, enabled, expiring before), sorts
 * (created, spend today, last used) with order and cursors, and each key's period spend and last
 * use, also in `GET /admin/keys/{id}`.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, type TestGateway } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The names of every key `query` lists, over all pages of `limit`. */
async function listedNames(gw: TestGateway, query: string, limit = 2): Promise<string[]> {
  const names: string[] = [];
  let cursor = "";
  do {
    const page = await gw.admin("GET", `/admin/keys?${query}&limit=${limit}&cursor=${cursor}`);
    assertEquals(page.status, 200, JSON.stringify(page.body));
    names.push(...page.body.data.map((key: Json) => key.name));
    cursor = page.body.cursor ?? "";
  } while (cursor);
  return names;
}

async function chat(gw: TestGateway, key: string, times: number): Promise<void> {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  for (let i = 0; i < times; i++) {
    await client.chat.completions.create({
      model: MODEL,
      max_tokens: 10,
      messages: [{ role: "user", content: `call ${i}` }],
    });
  }
}

Deno.test(
  "GET /admin/keys filters by name prefix, group, enabled and expiry",
  serverTest,
  async () => {
    await using s = await setupChat({ key: { name: "setup" } });
    const soon = new Date(Date.now() + 3600_000).toISOString();
    const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
    await s.gw.createKey({ name: "team-a-ci", group: "pro" });
    await s.gw.createKey({ name: "team-a-dev", enabled: false, expires_at: soon });
    await s.gw.createKey({ name: "team-b-ci", group: "pro", expires_at: later });
    await s.gw.createKey({ name: "other", enabled: false });

    assertEquals(await listedNames(s.gw, "name_prefix=team-a"), ["team-a-dev", "team-a-ci"]);
    assertEquals(await listedNames(s.gw, "group=pro&order=asc", 1), ["team-a-ci", "team-b-ci"]);
    assertEquals(await listedNames(s.gw, "enabled=false"), ["other", "team-a-dev"]);
    assertEquals(await listedNames(s.gw, "enabled=true&order=asc"), [
      "setup",
      "team-a-ci",
      "team-b-ci",
    ]);
    const inADay = encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString());
    assertEquals(await listedNames(s.gw, `expires_before=${inADay}`), ["team-a-dev"]);
    const inAYear = encodeURIComponent(new Date(Date.now() + 365 * 86_400_000).toISOString());
    assertEquals(await listedNames(s.gw, `expires_before=${inAYear}&name_prefix=team`), [
      "team-b-ci",
      "team-a-dev",
    ]);
    assertEquals(await listedNames(s.gw, "name_prefix=nobody"), []);
  },
);

Deno.test(
  "GET /admin/keys sorts by spend today and by last use; keys show period spend and last use",
  serverTest,
  async () => {
    await using s = await setupChat({ key: { name: "idle", balance: 0 } });
    const keys: Record<string, { id: string; key: string }> = {};
    for (const name of ["one", "three", "two"]) {
      keys[name] = await s.gw.createKey({ name, balance: 1_000_000 });
    }
    await chat(s.gw, keys.one.key, 1);
    await chat(s.gw, keys.three.key, 3);
    await chat(s.gw, keys.two.key, 2);
    await s.gw.settle();

    assertEquals(await listedNames(s.gw, "sort=spend"), ["three", "two", "one", "idle"]);
    assertEquals(await listedNames(s.gw, "sort=spend&order=asc", 1), [
      "idle",
      "one",
      "two",
      "three",
    ]);
    assertEquals(await listedNames(s.gw, "sort=spend&name_prefix=t", 1), ["three", "two"]);
    // Last use: "two" was used last; "idle" never, so it sorts last.
    assertEquals(await listedNames(s.gw, "sort=last_used", 3), ["two", "three", "one", "idle"]);
    assertEquals(await listedNames(s.gw, "sort=created&order=asc"), [
      "idle",
      "one",
      "three",
      "two",
    ]);

    const list = (await s.gw.admin("GET", "/admin/keys?sort=spend&limit=10")).body.data;
    const three = list.find((key: Json) => key.name === "three");
    const spent = 1_000_000 - await s.gw.assertLedgerInvariant(keys.three.id);
    assertOk(spent > 0);
    assertEquals(three.spend_today, spent);
    assertEquals(three.period_spend, { day: spent, week: spent, month: spent });
    const lastUsed = Date.parse(three.last_used_at);
    assertOk(Date.now() - lastUsed < 60_000, three.last_used_at);
    const idle = list.find((key: Json) => key.name === "idle");
    assertEquals([idle.spend_today, idle.last_used_at], [0, null]);
    const one = (await s.gw.admin("GET", `/admin/keys/${keys.one.id}`)).body;
    assertEquals(one.spend_today, 1_000_000 - await s.gw.balance(keys.one.id));
    assertOk(one.last_used_at !== null);
  },
);

Deno.test(
  "GET /admin/keys refuses a bad filter, sort or cursor with 400 naming it",
  serverTest,
  async () => {
    await using s = await setupChat();
    for (
      const [query, param] of [
        ["sort=cost", "sort"],
        ["enabled=yes", "enabled"],
        ["expires_before=tomorrow", "expires_before"],
        ["sort=spend&cursor=bm90LWEtY3Vyc29y", "cursor"],
        ["sort=last_used&order=up", "order"],
      ]
    ) {
      const answer = await s.gw.admin("GET", `/admin/keys?${query}`);
      assertEquals(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      assertEquals(answer.body.error.param, param, query);
    }
  },
);
