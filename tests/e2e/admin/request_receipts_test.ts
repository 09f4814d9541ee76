/**
 * GET /admin/requests/{id}: the receipt's numbers recompute to its amount, and the amount is what
 * the request's ledger entries took, for text (cached tokens), images (sync and task) and video
 * (reference seconds; a failed task's refund).
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest, type TestGateway } from "../../helpers/gateway.ts";
import { CACHED_TOKENS, MODEL_OF, setupText } from "../../helpers/text_setup.ts";
import { IMAGE_MODEL, setupImages } from "../../helpers/image_setup.ts";
import { PER_TASK, setupVideo } from "../../helpers/video_setup.ts";
import { billedSecondsOf, mediaFixtures } from "../../helpers/media_tools.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The request's record once everything about it is written (a task's, once it ended). */
async function recordOf(gw: TestGateway, requestId: string): Promise<Json> {
  for (let i = 0; i < 400; i++) {
    await gw.settle();
    const { status, body } = await gw.admin("GET", `/admin/requests/${requestId}`);
    if (status === 200 && !body.task_pending) return body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`request ${requestId} was not completed`);
}

/** The one record of `keyId` with `field` = `value`. */
async function findRecord(gw: TestGateway, keyId: string, match: (r: Json) => boolean) {
  await gw.settle();
  const { body } = await gw.admin("GET", `/admin/requests?key=${keyId}&limit=100`);
  const found = body.data.filter(match);
  assertEquals(found.length, 1, JSON.stringify(body.data));
  return found[0];
}

/** Asserts receipt amount = charged = −Σ the ledger entries of `ref`, whose ids it lists. */
async function assertReceiptIsLedger(
  gw: TestGateway,
  { keyId, record, ref }: { keyId: string; record: Json; ref: string },
) {
  const receipt = record.receipt;
  assertOk(receipt, `no receipt on ${JSON.stringify(record)}`);
  const entries = (await gw.ledger(keyId) as Json[]).filter((entry) => entry.ref === ref);
  const taken = 0 - entries.reduce((sum: number, entry: Json) => sum + entry.amount, 0);
  assertEquals(receipt.ledger_entry_ids, entries.map((entry: Json) => entry.id));
  assertEquals(receipt.charged, taken);
  assertEquals(receipt.amount, taken);
  assertEquals(record.cost, taken);
  assertOk(receipt.formula.endsWith(`= ${receipt.amount}`), receipt.formula);
  await gw.assertLedgerInvariant(keyId);
}

/**
 * Asserts that a request charged in an aggregated entry names it and its share: the share is
 * the receipt's amount, and the shares of every request naming the entry add up to its cost.
 */
async function assertReceiptIsShare(
  gw: TestGateway,
  { keyId, record }: { keyId: string; record: Json },
) {
  const receipt = record.receipt;
  assertEquals(receipt.status, "charged");
  assertEquals(receipt.ledger_entry_ids.length, 1, "its share of one aggregated charge");
  const [share] = receipt.ledger_shares;
  assertEquals(share.id, receipt.ledger_entry_ids[0]);
  assertEquals(-share.amount, receipt.amount);
  assertEquals(receipt.charged, receipt.amount);
  assertEquals(record.cost, receipt.amount);
  const entry = (await gw.ledger(keyId) as Json[]).find((candidate) => candidate.id === share.id);
  assertEquals(entry.type, "charge");
  const records = (await gw.admin("GET", "/admin/requests?limit=100")).body.data as Json[];
  const sharing = records.filter((other) => other.receipt?.ledger_entry_ids?.includes(share.id));
  assertEquals(sharing.length, entry.requests);
  const shares = sharing.reduce((sum, other) => sum - other.receipt.ledger_shares[0].amount, 0);
  assertEquals(shares, entry.cost);
  assertEquals(entry.amount, -entry.cost);
  await gw.assertLedgerInvariant(keyId);
}

Deno.test(
  "receipt: reasoning tokens the upstream reported are named, as part of the output, streamed or not",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const cases: Array<[string, () => Promise<{ requestId: string; reasoning: number }>]> = [
      ["chat", async () => {
        const { data, response } = await client.chat.completions.create({
          model: MODEL_OF.openai,
          reasoning_effort: "low",
          messages: [{ role: "user", content: "Think, then answer in a word" }],
        }).withResponse();
        return {
          requestId: response.headers.get("x-request-id")!,
          reasoning: data.usage!.completion_tokens_details!.reasoning_tokens!,
        };
      }],
      ["chat stream", async () => {
        const { data: stream, response } = await client.chat.completions.create({
          model: MODEL_OF.openai,
          reasoning_effort: "low",
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: "user", content: "Think, then answer in a word" }],
        }).withResponse();
        let reasoning = NaN;
        for await (const chunk of stream) {
          if (chunk.usage) reasoning = chunk.usage.completion_tokens_details!.reasoning_tokens!;
        }
        return { requestId: response.headers.get("x-request-id")!, reasoning };
      }],
      ["responses", async () => {
        const { data, response } = await client.responses.create({
          model: MODEL_OF["openai-responses"],
          reasoning: { effort: "low" },
          input: "Think, then answer in a word",
        }).withResponse();
        return {
          requestId: response.headers.get("x-request-id")!,
          reasoning: data.usage!.output_tokens_details.reasoning_tokens,
        };
      }],
      ["responses stream", async () => {
        const { data: stream, response } = await client.responses.create({
          model: MODEL_OF["openai-responses"],
          reasoning: { effort: "low" },
          stream: true,
          input: "Think, then answer in a word",
        }).withResponse();
        let reasoning = NaN;
        for await (const event of stream) {
          if (event.type === "response.completed") {
            reasoning = event.response.usage!.output_tokens_details.reasoning_tokens;
          }
        }
        return { requestId: response.headers.get("x-request-id")!, reasoning };
      }],
    ];
    for (const [name, send] of cases) {
      const { requestId, reasoning } = await send();
      assertOk(reasoning > 0, `${name}: the upstream reasoned`);
      const record = await recordOf(s.gw, requestId);
      assertEquals(record.receipt.units.reasoning_tokens, reasoning, name);
      assertOk(record.receipt.units.output_tokens >= reasoning, name);
    }
    // An upstream that does not report them separately: null, not 0.
    const plain = await client.chat.completions.create({
      model: MODEL_OF.anthropic,
      messages: [{ role: "user", content: "hi" }],
    }).withResponse();
    const record = await recordOf(s.gw, plain.response.headers.get("x-request-id")!);
    assertEquals(record.receipt.units.reasoning_tokens, null);
  },
);

Deno.test(
  "receipt: text with cached tokens recomputes to the ledger's amount",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const { response } = await client.chat.completions.create({
      model: MODEL_OF.openai,
      messages: [{ role: "user", content: "Tell me about the sea in a few words, please" }],
    }).withResponse();
    const requestId = response.headers.get("x-request-id")!;
    const record = await recordOf(s.gw, requestId);
    const { units, prices, multipliers } = record.receipt;
    assertEquals(record.receipt.kind, "text");
    assertEquals(units.cached_input_tokens, CACHED_TOKENS);
    assertEquals(multipliers, {});
    const uncached = units.input_tokens - units.cached_input_tokens;
    const recomputed = Math.ceil(
      (uncached * prices.input + units.cached_input_tokens * prices.cached_input +
        units.output_tokens * prices.output) / 1_000_000,
    );
    assertEquals(recomputed, record.receipt.amount);
    assertEquals(record.upstream_attempts.length, 1);
    assertEquals(record.upstream_attempts[0].outcome, "ok");
    await assertReceiptIsShare(s.gw, { keyId: s.keyId, record });
  },
);

Deno.test(
  "receipt: concurrent requests each name their share of the aggregated charge they are in",
  serverTest,
  async () => {
    await using s = await setupText();
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        client.chat.completions.create({
          model: MODEL_OF.openai,
          messages: [{ role: "user", content: `Request number ${i} ${"word ".repeat(i)}` }],
        }).withResponse()),
    );
    const records = await Promise.all(
      answers.map(({ response }) => recordOf(s.gw, response.headers.get("x-request-id")!)),
    );
    for (const record of records) await assertReceiptIsShare(s.gw, { keyId: s.keyId, record });
    const charged = records.reduce((sum, record) => sum + record.cost, 0);
    assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 100_000_000 - charged);
  },
);

Deno.test("receipt: a synchronous image request at a tier price", serverTest, async () => {
  await using s = await setupImages("openai-images");
  const { response } = await s.client.images.generate({
    model: IMAGE_MODEL,
    prompt: "a red kite",
    n: 2,
    size: "1536x1024",
    quality: "high",
  }).withResponse();
  const requestId = response.headers.get("x-request-id")!;
  const record = await recordOf(s.gw, requestId);
  const { units, prices } = record.receipt;
  assertEquals([record.receipt.kind, units.images, prices.per_image], ["image", 2, 90_000]);
  assertEquals(units.images * prices.per_image, record.receipt.amount);
  assertEquals(record.images, 2);
  await assertReceiptIsLedger(s.gw, { keyId: s.keyId, record, ref: requestId });
});

Deno.test(
  "receipt: an image task holds, then settles for the delivered images",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const response = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGE_MODEL,
      prompt: "three kites",
      n: 3,
    }, { "x-gateway-async-task": "true" });
    const taskId = (await response.json()).data.task_id;
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    assertEquals([record.task_id, record.task_status], [taskId, "succeeded"]);
    const receipt = record.receipt;
    assertEquals([receipt.status, receipt.held, receipt.refunded], ["settled", 120_000, 0]);
    assertEquals(receipt.units.images * receipt.prices.per_image, receipt.amount);
    assertOk(record.channel_id, "the channel that ran the task");
    await assertReceiptIsLedger(s.gw, { keyId: s.keyId, record, ref: taskId });
  },
);

Deno.test(
  "receipt: a video task with reference seconds, billed to the millisecond",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const fixtures = mediaFixtures();
    const response = await s.submit({ model: "vid-2", prompt: "dance like this", duration: "5" }, [
      { field: "video", bytes: fixtures.mp4_3s, filename: "moves.mp4" },
      { field: "audio", bytes: fixtures.wav_2500ms, filename: "beat.wav" },
    ]);
    const taskId = (await response.json()).id;
    assertEquals((await s.waitForTask(taskId)).status, "SUCCESS");
    const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
    const { units, prices } = record.receipt;
    assertEquals(units.output_seconds, 5);
    assertEquals(units.reference_seconds.length, 2);
    const referenceMs = units.reference_seconds.reduce(
      (sum: number, seconds: number) => sum + Math.round(seconds * 1000),
      0,
    );
    assertEquals(
      referenceMs,
      Math.round((billedSecondsOf("mp4_3s.mp4") + billedSecondsOf("wav_2500ms.wav")) * 1000),
    );
    const recomputed = Math.ceil(prices.per_second * (5_000 + referenceMs) / 1000);
    assertEquals(recomputed, record.receipt.amount);
    assertEquals(record.billed_seconds, (5_000 + referenceMs) / 1000);
    assertEquals(record.receipt.status, "settled");
    await assertReceiptIsLedger(s.gw, { keyId: s.keyId, record, ref: taskId });
  },
);

Deno.test(
  "receipt: failed video tasks show the hold and the refund their policy gives",
  serverTest,
  async () => {
    for (const [percent, kept] of [[100, 0], [50, PER_TASK / 2]] as const) {
      await using s = await setupVideo({
        cheapPrice: { per_task: PER_TASK, failure_refund_percent: percent },
        ark: { plan: () => ({ outcome: "failed" }) },
      });
      const response = await s.submit({ model: "vid-2-cheap", prompt: "cheap fail" });
      const taskId = (await response.json()).id;
      assertEquals((await s.waitForTask(taskId)).status, "FAILURE");
      const record = await recordOf(s.gw, response.headers.get("x-request-id")!);
      const receipt = record.receipt;
      assertEquals([record.task_status, receipt.status], ["failed", "refunded"]);
      assertEquals([receipt.held, receipt.refunded, receipt.amount], [
        PER_TASK,
        PER_TASK - kept,
        kept,
      ]);
      assertEquals(receipt.multipliers.failure_refund_percent, percent);
      assertEquals(receipt.held - Math.floor(receipt.held * percent / 100), receipt.amount);
      await assertReceiptIsLedger(s.gw, { keyId: s.keyId, record, ref: taskId });
    }
  },
);

Deno.test(
  "GET /admin/requests/{id}: attempts and ignored fields are on the record",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const response = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGE_MODEL,
      prompt: "a kite",
      style: "vivid",
    });
    const ignored = response.headers.get("x-gateway-ignored-fields");
    await response.body?.cancel();
    const record = await findRecord(
      s.gw,
      s.keyId,
      (r) => r.id === response.headers.get("x-request-id"),
    );
    const full = (await s.gw.admin("GET", `/admin/requests/${record.id}`)).body;
    assertEquals(full.upstream_attempts.length >= 1, true);
    assertEquals(full.ignored_fields ?? [], ignored ? ignored.split(",") : []);
  },
);
