/** GET /admin/requests: every filter alone and combined, cursors, and bad values (400 naming them). */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { MODEL_OF, setupText, type TextSetup } from "../../helpers/text_setup.ts";

interface LoggedRequest {
  id: string;
  key_id: string | null;
  model: string | null;
  channel_id: string | null;
  status: number;
  interface: string;
}

/** Every page of `path` (which must have a query), `limit` records a page. */
async function allPages(s: TextSetup, path: string, limit: number): Promise<LoggedRequest[]> {
  const records: LoggedRequest[] = [];
  let cursor = "";
  for (let page = 0; page < 1000; page++) {
    const { status, body } = await s.gw.admin("GET", `${path}&limit=${limit}&cursor=${cursor}`);
    assertEquals(status, 200, JSON.stringify(body));
    records.push(...body.data);
    cursor = body.cursor ?? "";
    if (!cursor) return records;
  }
  throw new Error("too many pages");
}

/** Makes a mix of requests: two keys, two interfaces, four models, successes and 4xx. */
async function traffic(s: TextSetup) {
  const other = await s.gw.createKey({ name: "other", balance: 10_000_000 });
  const openai = (key: string) =>
    new OpenAI({ apiKey: key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: s.key, baseURL: s.gw.url, maxRetries: 0 });
  const messages = [{ role: "user" as const, content: "Hello there" }];
  for (const model of [MODEL_OF.openai, MODEL_OF.anthropic, MODEL_OF.gemini]) {
    await openai(s.key).chat.completions.create({ model, messages });
  }
  await openai(other.key).chat.completions.create({ model: MODEL_OF.openai, messages });
  await anthropic.messages.create({
    model: MODEL_OF["openai-responses"],
    max_tokens: 50,
    messages,
  });
  await openai(s.key).chat.completions.create({ model: "no-such-model", messages }).catch(() => {});
  await anthropic.messages.create({ model: "no-such-model", max_tokens: 50, messages }).catch(
    () => {},
  );
  await s.gw.settle();
  return { otherKeyId: other.id };
}

Deno.test(
  "GET /admin/requests: each filter and combinations return exactly the matching records",
  serverTest,
  async () => {
    await using s = await setupText();
    const { otherKeyId } = await traffic(s);
    const all = await allPages(s, "/admin/requests?order=desc", 1000);
    assertEquals(all.length, 7);
    // Both interfaces the traffic used are there, so their filters are not vacuous.
    const interfaces = new Set(all.map((record) => record.interface));
    assertOk(interfaces.has("openai-chat") && interfaces.has("anthropic"), [...interfaces].join());
    const openaiChannel = all.find((record) => record.model === MODEL_OF.openai)!.channel_id!;
    const cases: Array<[string, (record: LoggedRequest) => boolean]> = [
      [`key=${s.keyId}`, (r) => r.key_id === s.keyId],
      [`key=${otherKeyId}`, (r) => r.key_id === otherKeyId],
      [`model=${MODEL_OF.anthropic}`, (r) => r.model === MODEL_OF.anthropic],
      [`channel=${openaiChannel}`, (r) => r.channel_id === openaiChannel],
      ["status=2xx", (r) => r.status >= 200 && r.status < 300],
      ["status=4xx", (r) => r.status >= 400 && r.status < 500],
      ["status=404", (r) => r.status === 404],
      ["status=5xx", (r) => r.status >= 500],
      ["interface=anthropic", (r) => r.interface === "anthropic"],
      ["interface=openai-chat", (r) => r.interface === "openai-chat"],
      ["interface=openai", (r) => r.interface === "openai"],
      [`request_id=${all[3].id}`, (r) => r.id === all[3].id],
      [`since=${new Date(0).toISOString()}`, () => true],
      [`until=2000-01-01T00:00:00Z`, () => false],
      [
        `key=${s.keyId}&model=${MODEL_OF.openai}&status=2xx`,
        (r) => r.key_id === s.keyId && r.model === MODEL_OF.openai && r.status < 300,
      ],
      [`interface=anthropic&status=4xx`, (r) => r.interface === "anthropic" && r.status >= 400],
      [
        `channel=${openaiChannel}&key=${otherKeyId}`,
        (r) => r.channel_id === openaiChannel && r.key_id === otherKeyId,
      ],
      [`request_id=${all[3].id}&status=5xx`, () => false],
      [
        `model=no-such-model&interface=openai-chat`,
        (r) => r.model === "no-such-model" && r.interface === "openai-chat",
      ],
    ];
    for (const [query, wanted] of cases) {
      const expected = all.filter(wanted).map((record) => record.id);
      for (const limit of [1, 2, 50]) {
        const found = (await allPages(s, `/admin/requests?${query}`, limit)).map((r) => r.id);
        assertEquals(found, expected, `${query} (limit ${limit})`);
      }
      const ascending = (await allPages(s, `/admin/requests?order=asc&${query}`, 2)).map((r) =>
        r.id
      );
      assertEquals(ascending, [...expected].reverse(), `${query} ascending`);
    }
    assertOk(all.some((record) => record.status === 404), "a 404 was logged");
  },
);

Deno.test(
  "GET /admin/requests: a bad filter value is a 400 naming the parameter",
  serverTest,
  async () => {
    await using s = await setupText();
    const bad: Array<[string, string]> = [
      ["status=6xx", "status"],
      ["status=20", "status"],
      ["status=ok", "status"],
      ["channel=no%20spaces", "channel"],
      ["interface=grpc", "interface"],
      ["request_id=task_123", "request_id"],
      ["key=nope", "key"],
      [`model=${"m".repeat(300)}`, "model"],
      ["since=yesterday", "since"],
      ["until=2026-13-45T00:00:00Z", "until"],
      ["status=2xx&status=4xx", "status"],
      ["order=sideways", "order"],
    ];
    for (const [query, param] of bad) {
      for (const path of ["/admin/requests", "/admin/requests/export"]) {
        const { status, body } = await s.gw.admin("GET", `${path}?${query}`);
        assertEquals(status, 400, `${path}?${query}: ${JSON.stringify(body)}`);
        assertEquals(body.error.param, param, query);
        assertOk(body.error.message.includes(`'${param}'`), body.error.message);
      }
    }
    const missing = await s.gw.admin("GET", "/admin/requests/req_00000000000000000000000000");
    assertEquals([missing.status, missing.body.error.code], [404, "request_not_found"]);
    const odd = await s.gw.admin("GET", "/admin/requests/not-a-request");
    assertEquals([odd.status, odd.body.error.code], [404, "request_not_found"]);
  },
);
