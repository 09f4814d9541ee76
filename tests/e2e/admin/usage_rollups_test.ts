/**
 * GET /admin/usage: the rollups written with the request log equal the sums of the log's own
 * records, for every group_by and both intervals, over text (cached tokens, failures), images
 * (sync and task) and video (a settled task with references, a refunded one).
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest, startTestGateway, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";
import { startArkVideoUpstream } from "../../upstream/ark_video.ts";
import { ARK_MODEL, FAST_VIDEO_ENV, PER_SECOND, videoClient } from "../../helpers/video_setup.ts";
import { IMAGE_PRICE } from "../../helpers/image_setup.ts";
import { mediaFixtures } from "../../helpers/media_tools.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const GROUPS = ["key", "model", "channel"] as const;
const HOUR = 3_600_000;

/** Every subset of key, model, channel, in that order. */
const SUBSETS = Array.from(
  { length: 8 },
  (_, mask) => GROUPS.filter((_, index) => mask & (1 << index)),
);

function requestTime(id: string): number {
  return parseInt(id.slice(4, 13), 36);
}

/** What the usage should be, summed from the log's records. */
function sumOfLog(records: Json[], groupBy: readonly string[], interval: "hour" | "day") {
  const rows = new Map<string, Json>();
  for (const record of records) {
    const size = interval === "hour" ? HOUR : 24 * HOUR;
    const start = Math.floor(requestTime(record.id) / size) * size;
    const group = {
      ...(groupBy.includes("key") ? { key_id: record.key_id } : {}),
      ...(groupBy.includes("model") ? { model: record.model } : {}),
      ...(groupBy.includes("channel") ? { channel_id: record.channel_id } : {}),
    };
    const id = JSON.stringify([start, group]);
    const row = rows.get(id) ?? {
      start: new Date(start).toISOString(),
      ...group,
      requests: 0,
      input_tokens: 0,
      cached_input_tokens: 0,
      output_tokens: 0,
      ms: 0,
      images: 0,
      cost: 0,
    };
    row.requests++;
    row.input_tokens += record.input_tokens;
    row.cached_input_tokens += record.cached_input_tokens;
    row.output_tokens += record.output_tokens;
    row.ms += Math.round((record.billed_seconds ?? 0) * 1000);
    row.images += record.images ?? 0;
    row.cost += record.cost;
    rows.set(id, row);
  }
  const key = (row: Json) =>
    [row.start, row.key_id ?? "", row.model ?? "", row.channel_id ?? ""].join("\u0000");
  return [...rows.values()]
    .map(({ ms, ...row }) => ({ ...row, seconds: ms / 1000 }))
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

Deno.test("usage: rollups equal the log for every group_by and interval", serverTest, async () => {
  await using stack = new AsyncDisposableStack();
  const chat = stack.use(startOpenAIChatUpstream({ cachedTokens: 4 }));
  const images = startOpenAIImagesUpstream();
  stack.defer(() => images.close());
  const ark = startArkVideoUpstream({
    plan: (body) => (body.model === ARK_MODEL ? {} : { outcome: "failed" }),
  });
  stack.defer(() => ark.close());
  const gw = stack.use(await startTestGateway(FAST_VIDEO_ENV));
  await gw.putModel("chat-a", { kind: "text", price: TEST_TEXT_PRICE });
  await gw.putModel("chat-b", { kind: "text", price: TEST_TEXT_PRICE });
  await gw.putModel("img", { kind: "image", price: IMAGE_PRICE });
  await gw.putModel("vid-2", { kind: "video", price: { per_second: PER_SECOND } });
  await gw.putModel("vid-2-cheap", { kind: "video", price: { per_task: 300_000 } });
  await gw.addChannel({ name: "chat", base_url: chat.baseUrl, models: ["chat-a", "chat-b"] });
  await gw.addChannel({
    name: "images",
    type: "openai-images",
    base_url: images.baseUrl,
    models: ["img"],
  });
  await gw.addChannel({
    name: "ark",
    type: "ark-video",
    base_url: ark.baseUrl,
    keys: ["ark-upstream-test"],
    models: ["vid-2", "vid-2-cheap"],
    model_map: { "vid-2": ARK_MODEL },
  });
  const first = await gw.createKey({ name: "first", balance: 100_000_000 });
  const second = await gw.createKey({ name: "second", unlimited: true });

  const messages = [{ role: "user" as const, content: "Say something about kites" }];
  for (const key of [first.key, second.key]) {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: "chat-a", messages });
    await client.chat.completions.create({ model: "chat-b", messages, stream: true })
      .then(async (stream) => {
        for await (const _ of stream) { /* read to the end */ }
      });
    await client.chat.completions.create({ model: "no-such", messages }).catch(() => {});
    await client.images.generate({ model: "img", prompt: "a kite", n: 2 });
  }
  const task = await postJson(gw, "/v1/images/generations", first.key, {
    model: "img",
    prompt: "kites",
    n: 3,
  }, { "x-gateway-async-task": "true" });
  await task.body?.cancel();
  const video = videoClient(gw.url, first.key);
  const fixtures = mediaFixtures();
  const made = await video.submit({ model: "vid-2", prompt: "fly", duration: "5" }, [
    { field: "video", bytes: fixtures.mp4_3s, filename: "kite.mp4" },
  ]);
  const failed = await video.submit({ model: "vid-2-cheap", prompt: "fall" });
  for (const response of [made, failed]) {
    const id = (await response.json()).id;
    const ended = await video.waitForTask(id);
    assertOk(["SUCCESS", "FAILURE"].includes(ended.status), JSON.stringify(ended));
  }

  let records: Json[] = [];
  for (let i = 0; i < 400; i++) {
    await gw.settle();
    records = (await gw.admin("GET", "/admin/requests?limit=1000")).body.data;
    if (!records.some((record) => record.task_pending)) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assertOk(records.length >= 11, `${records.length} records`);
  assertOk(records.some((record) => record.cached_input_tokens > 0), "cached tokens");
  assertOk(records.some((record) => record.billed_seconds > 5), "reference seconds");
  const refunded = records.find((record) => record.task_status === "failed");
  assertEquals(refunded?.cost, 0, "a refunded task costs nothing");

  const earliest = Math.min(...records.map((record) => requestTime(record.id)));
  const from = new Date(Math.floor(earliest / HOUR) * HOUR - HOUR).toISOString();
  const to = new Date(Date.now() + HOUR).toISOString();
  for (const interval of ["hour", "day"] as const) {
    for (const groupBy of SUBSETS) {
      const query = `group_by=${groupBy.join(",")}&interval=${interval}&from=${from}&to=${to}`;
      const { status, body } = await gw.admin("GET", `/admin/usage?${query}`);
      assertEquals(status, 200, JSON.stringify(body));
      assertEquals(body.group_by, groupBy);
      assertEquals(body.data, sumOfLog(records, groupBy, interval), query);
    }
  }
  const later = await gw.admin(
    "GET",
    `/admin/usage?from=${to}&to=${new Date(Date.now() + 3 * HOUR).toISOString()}`,
  );
  assertEquals(later.body.data, []);
});

Deno.test("usage: bad parameters are a 400 naming them", serverTest, async () => {
  await using gw = await startTestGateway();
  const cases: Array<[string, string]> = [
    ["group_by=key,team", "group_by"],
    ["group_by=key,key", "group_by"],
    ["interval=week", "interval"],
    ["from=yesterday", "from"],
    ["to=2026-99-01T00:00:00Z", "to"],
    ["from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "from"],
    ["from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "to"],
  ];
  for (const [query, param] of cases) {
    const { status, body } = await gw.admin("GET", `/admin/usage?${query}`);
    assertEquals([status, body.error?.param], [400, param], query);
  }
  const ok = await gw.admin("GET", "/admin/usage?group_by=channel,key");
  assertEquals([ok.status, ok.body.group_by], [200, ["key", "channel"]]);
});
