/**
 * Spend caps per period and tokens per minute end to end, on the real server: 100 concurrent
 * requests with the official openai SDK admit exactly what fits (the upstream holds every
 * admitted request until all have been decided, so no settle frees room meanwhile); refusals in
 * each interface's envelope (openai, Anthropic and Google SDKs, images) with `retry-after`, and
 * nothing charged for them.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import {
  postJson,
  serverTest,
  startTestGateway,
  TEST_TEXT_PRICE,
  type TestGateway,
} from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";
import { IMAGE_MODEL, setupImages } from "../helpers/image_setup.ts";
import { setupVideo, videoClient } from "../helpers/video_setup.ts";
import { estimatePromptTokens } from "../../core/formats/openai_chat/estimate_tokens.ts";
import type { ChatRequest } from "../../core/formats/openai_chat/request_schema.ts";

const MAX_TOKENS = 20;
const body = {
  model: MODEL,
  max_tokens: MAX_TOKENS,
  messages: [{ role: "user" as const, content: "count the spend" }],
};
/** What the gated upstream reports for every request. */
const USAGE = { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 };

/**
 * A chat-completions upstream that answers nothing until `open()`: every admitted request waits
 * there, so holds are decided before any settle.
 */
function startGatedChatUpstream() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  let arrived = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    const sent = await request.json();
    arrived++;
    await gate;
    return Response.json({
      id: `chatcmpl-${crypto.randomUUID()}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: sent.model,
      choices: [{
        index: 0,
        message: { role: "assistant", content: "ok" },
        finish_reason: "stop",
      }],
      usage: USAGE,
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    arrived: () => arrived,
    open: () => open(),
    async [Symbol.asyncDispose]() {
      open();
      await server.shutdown();
    },
  };
}

async function gatewayWithModel(baseUrl: string): Promise<TestGateway> {
  const gw = await startTestGateway();
  await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
  await gw.addChannel({ name: "gated", base_url: baseUrl, models: [MODEL] });
  return gw;
}

/** Waits out the last seconds of a UTC minute, so a burst counts in one minute. */
async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

type GatedUpstream = ReturnType<typeof startGatedChatUpstream>;

/**
 * Sends 100 concurrent requests with `key` through the openai SDK; once each is either refused
 * or waiting at the upstream (where `waitingBefore` others already wait), reads the key and
 * opens the upstream. Returns the answers, the errors and the key as it was while all waited.
 */
async function burst(
  gw: TestGateway,
  upstream: GatedUpstream,
  options: { id: string; key: string; waitingBefore?: number },
) {
  const before = options.waitingBefore ?? 0;
  const client = new OpenAI({ apiKey: options.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const refused: InstanceType<typeof OpenAI.APIError>[] = [];
  const requests = Array.from(
    { length: 100 },
    () =>
      client.chat.completions.create(body).catch((error) => {
        assertOk(error instanceof OpenAI.APIError, String(error));
        refused.push(error);
        return null;
      }),
  );
  while (refused.length + upstream.arrived() - before < 100) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const waiting = upstream.arrived() - before;
  const whileHeld = (await gw.admin("GET", `/admin/keys/${options.id}`)).body;
  upstream.open();
  const answers = (await Promise.all(requests)).filter((answer) => answer !== null);
  assertEquals(answers.length, waiting);
  return { answers, refused, whileHeld };
}

/**
 * The units one request of `body` holds, read from a probe key's hold entry; the probe waits at
 * the upstream until it opens.
 */
async function heldPerRequest(gw: TestGateway, upstream: GatedUpstream) {
  // Capped, so that it holds in the ledger like the keys measured.
  const probe = await gw.createKey({
    name: "probe",
    balance: 1_000_000,
    spend_limits: { month: 1_000_000 },
  });
  const client = new OpenAI({ apiKey: probe.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const answer = client.chat.completions.create(body);
  while (upstream.arrived() < 1) await new Promise((resolve) => setTimeout(resolve, 10));
  const hold = (await gw.ledger(probe.id)).find((entry) => entry.type === "hold")!;
  return { held: -hold.amount, answer };
}

Deno.test(
  "spend cap: 100 concurrent openai SDK requests admit exactly what fits; no overshoot",
  serverTest,
  async () => {
    await using upstream = startGatedChatUpstream();
    await using gw = await gatewayWithModel(upstream.baseUrl);
    const { held, answer: probeAnswer } = await heldPerRequest(gw, upstream);
    const fits = 7;
    const cap = fits * held + Math.floor(held / 2);
    const opening = 10_000_000;
    const { id, key } = await gw.createKey({
      name: "capped",
      balance: opening,
      spend_limits: { day: cap, month: cap * 100 },
    });
    const { answers, refused, whileHeld } = await burst(gw, upstream, {
      id,
      key,
      waitingBefore: 1,
    });
    await probeAnswer;
    assertEquals(answers.length, fits);
    assertEquals(whileHeld.spend_today, fits * held);
    assertOk(whileHeld.spend_today <= cap, "the period spend went over the cap");
    assertEquals(refused.length, 100 - fits);
    for (const error of refused) {
      assertEquals(error.status, 402);
      assertEquals(error.code, "spend_limit_exceeded");
      assertOk(error.message.includes(`Daily spend limit of ${cap} units reached`), error.message);
      const retryAfter = Number(error.headers?.get("retry-after"));
      assertOk(retryAfter >= 1 && retryAfter <= 86_400, `retry-after ${retryAfter}`);
    }

    await gw.settle();
    const cost = USAGE.prompt_tokens + 2 * USAGE.completion_tokens;
    const view = (await gw.admin("GET", `/admin/keys/${id}`)).body;
    assertEquals(view.spend_today, fits * cost, "settles replace the holds with the cost");
    assertEquals(view.period_spend, { day: fits * cost, week: fits * cost, month: fits * cost });
    const balance = await gw.assertLedgerInvariant(id);
    assertEquals(balance, opening - fits * cost);
    const entries = await gw.ledger(id);
    assertEquals(entries.filter((entry) => entry.type === "hold").length, fits);
  },
);

Deno.test(
  "tpm: 100 concurrent openai SDK requests admit exactly the tokens that fit in the minute",
  serverTest,
  async () => {
    await using upstream = startGatedChatUpstream();
    await using gw = await gatewayWithModel(upstream.baseUrl);
    const tokens = estimatePromptTokens(body as unknown as ChatRequest) + MAX_TOKENS;
    const fits = 6;
    const tpm = fits * tokens + Math.floor(tokens / 2);
    const opening = 10_000_000;
    const { id, key } = await gw.createKey({ name: "tpm", balance: opening, tpm });
    await awayFromMinuteEnd();
    const { answers, refused } = await burst(gw, upstream, { id, key });
    assertEquals(answers.length, fits);
    assertEquals(refused.length, 100 - fits);
    for (const error of refused) {
      assertEquals(error.status, 429);
      assertEquals(error.code, "tpm_limit_exceeded");
      assertOk(error.message.includes(`Tokens-per-minute limit of ${tpm}`), error.message);
      const retryAfter = Number(error.headers?.get("retry-after"));
      assertOk(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
    }
    await gw.settle();
    const cost = USAGE.prompt_tokens + 2 * USAGE.completion_tokens;
    assertEquals(await gw.assertLedgerInvariant(id), opening - fits * cost);
  },
);

Deno.test(
  "spend cap and tpm refusals: chat, messages and generateContent envelopes; nothing charged",
  serverTest,
  async () => {
    await using s = await setupChat();
    const opening = 1_000_000;
    const capped = await s.gw.createKey({ balance: opening, spend_limits: { day: 0 } });
    const limited = await s.gw.createKey({ balance: opening, tpm: 1 });
    const cases = [
      { key: capped, status: 402, code: "spend_limit_exceeded", words: "Daily spend limit of 0" },
      {
        key: limited,
        status: 429,
        code: "tpm_limit_exceeded",
        words: "Tokens-per-minute limit of 1",
      },
    ];
    for (const { key, status, code, words } of cases) {
      const openai = new OpenAI({ apiKey: key.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
      const chatError = await openai.chat.completions.create(body).catch((error) => error);
      assertOk(chatError instanceof OpenAI.APIError, String(chatError));
      assertEquals([chatError.status, chatError.code], [status, code]);
      assertOk(chatError.message.includes(words), chatError.message);
      assertOk(Number(chatError.headers?.get("retry-after")) >= 1);

      const anthropic = new Anthropic({ apiKey: key.key, baseURL: s.gw.url, maxRetries: 0 });
      const messagesError = await anthropic.messages.create({
        model: MODEL,
        max_tokens: MAX_TOKENS,
        messages: [{ role: "user", content: "hi" }],
      }).catch((error) => error);
      assertOk(messagesError instanceof Anthropic.APIError, String(messagesError));
      assertEquals(messagesError.status, status);
      const envelope = messagesError.error as {
        type: string;
        error: { type: string; message: string };
      };
      assertEquals(envelope.type, "error");
      assertEquals(envelope.error.type, status === 402 ? "billing_error" : "rate_limit_error");
      assertOk(envelope.error.message.includes(words), envelope.error.message);
      assertOk(Number(messagesError.headers?.get("retry-after")) >= 1);

      const google = new GoogleGenAI({ apiKey: key.key, httpOptions: { baseUrl: s.gw.url } });
      const geminiError = await google.models.generateContent({
        model: MODEL,
        contents: "hi",
        config: { maxOutputTokens: MAX_TOKENS },
      }).catch((error) => error);
      // Google's envelope has no 402: FAILED_PRECONDITION is 400 in google.rpc.Code.
      const geminiStatus = status === 402 ? 400 : status;
      assertEquals(geminiError.status, geminiStatus, String(geminiError));
      assertOk(String(geminiError.message).includes(words), geminiError.message);
      const raw = await postJson(s.gw, `/v1beta/models/${MODEL}:generateContent`, null, {
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
      }, { "x-goog-api-key": key.key });
      const gemini = await raw.json();
      assertEquals(raw.status, geminiStatus);
      assertEquals(gemini.error.code, geminiStatus);
      assertEquals(
        gemini.error.status,
        status === 402 ? "FAILED_PRECONDITION" : "RESOURCE_EXHAUSTED",
      );
      assertOk(Number(raw.headers.get("retry-after")) >= 1);

      await assertNothingCharged({ gw: s.gw, keyId: key.id }, opening, { untouched: true });
    }
    assertEquals(s.upstream.requests.length, 0, "a refused request reached the upstream");
  },
);

Deno.test(
  "spend cap: image requests hold against it and are refused with 402",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", {
      balance: 1_000_000,
      key: { spend_limits: { week: 1 } },
    });
    const response = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGE_MODEL,
      prompt: "a red square",
    });
    const answer = await response.json();
    assertEquals(response.status, 402, JSON.stringify(answer));
    assertEquals(answer.error.code, "spend_limit_exceeded");
    assertOk(answer.error.message.includes("Weekly spend limit of 1 units"), answer.error.message);
    assertOk(Number(response.headers.get("retry-after")) >= 1);
    await assertNothingCharged(s, 1_000_000, { untouched: true });
  },
);

Deno.test(
  "spend cap: a video task holds against it; over the cap it is refused with 402",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const opening = 100_000_000;
    const capped = await s.gw.createKey({ balance: opening, spend_limits: { month: 10 } });
    const client = videoClient(s.gw.url, capped.key);
    const response = await client.submit({ model: "vid-2-cheap", prompt: "a cat", duration: "5" });
    const answer = await response.json();
    assertEquals(response.status, 402, JSON.stringify(answer));
    assertEquals(answer.error.code, "spend_limit_exceeded");
    assertOk(
      answer.error.message.includes("Monthly spend limit of 10 units"),
      answer.error.message,
    );
    assertOk(Number(response.headers.get("retry-after")) >= 1);
    await assertNothingCharged({ gw: s.gw, keyId: capped.id }, opening, { untouched: true });

    // Under a cap that fits, the task's hold counts in the month until it settles.
    const roomy = await s.gw.createKey({ balance: opening, spend_limits: { month: opening } });
    const accepted = await videoClient(s.gw.url, roomy.key).submit({
      model: "vid-2-cheap",
      prompt: "a cat",
      duration: "5",
    });
    const task = await accepted.json();
    assertEquals(accepted.status, 200, JSON.stringify(task));
    const done = await videoClient(s.gw.url, roomy.key).waitForTask(task.task_id ?? task.id);
    assertEquals(done.status, "SUCCESS");
    await s.gw.settle();
    const view = (await s.gw.admin("GET", `/admin/keys/${roomy.id}`)).body;
    assertOk(view.period_spend.month > 0, "the task's cost is not in the month's spend");
    assertEquals(view.period_spend.month, opening - await s.gw.assertLedgerInvariant(roomy.id));
  },
);
