/**
 * POST /v1/rerank end to end: a client as Dify sends it (raw fetch, Bearer, `{model, query,
 * documents, top_n}` to `{base}/rerank`), both wire shapes upstream (Jina/vLLM `/v1/rerank`,
 * Cohere `/v2/rerank`), both price units, failover between two rerank channels, bad input
 * refused with nothing charged; each case checks the wallet against the receipts.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import {
  RERANK_SEARCH_MODEL,
  RERANK_SEARCH_PRICE,
  RERANK_TOKEN_MODEL,
  RERANK_TOKEN_PRICE,
  RERANK_UPSTREAM_MODEL,
  type RerankSetup,
  settledRecord,
  setupRerank,
} from "../helpers/rerank_setup.ts";
import { simulatedScore, simulatedTokens, startRerankUpstream } from "../upstream/rerank.ts";

const QUERY = "What is the capital of France?";
const DOCUMENTS = [
  "Berlin is the capital of Germany.",
  "Paris is the capital of France.",
  "The sea is wide.",
];

/** The wallet moved by exactly the receipts' charges, and its ledger verifies. */
async function assertWalletMatchesReceipts(
  s: RerankSetup,
  opening: number,
  charged: number[],
): Promise<void> {
  const balance = await s.gw.assertLedgerInvariant(s.keyId);
  assertEquals(opening - balance, charged.reduce((sum, amount) => sum + amount, 0));
  const verified = await s.gw.admin("GET", `/admin/keys/${s.keyId}/ledger/verify`);
  assertEquals(verified.body.ok, true, JSON.stringify(verified.body));
}

Deno.test(
  "a rerank client as Dify sends it: results by score with index and relevance_score, billed per search unit",
  serverTest,
  async () => {
    await using s = await setupRerank();
    const opening = await s.gw.balance(s.keyId);
    // Dify's OpenAI-compatible rerank: POST {endpoint}/rerank, Bearer, {model, query, documents, top_n}.
    const response = await fetch(`${s.gw.url}/v1/rerank`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: RERANK_SEARCH_MODEL,
        query: QUERY,
        documents: DOCUMENTS,
        top_n: 2,
      }),
    });
    assertEquals(response.status, 200);
    const body = await response.json();
    assertEquals(body.results.map((result: { index: number }) => result.index), [1, 0]);
    assertEquals(body.results[0].relevance_score, simulatedScore(QUERY, DOCUMENTS[1], 1));
    assertEquals(body.results[0].document, undefined);
    assertEquals(body.model, RERANK_SEARCH_MODEL);
    assertEquals(body.meta.billed_units.search_units, 1);
    assertEquals(body.usage.total_tokens, simulatedTokens(QUERY, DOCUMENTS));
    // The upstream got strings, its own model name, top_n, and the channel's key.
    const sent = s.upstream.requests[0];
    assertEquals(sent.path, "/v1/rerank");
    assertEquals(sent.authorization, "Bearer sk-upstream-test");
    assertEquals(sent.body, {
      model: RERANK_UPSTREAM_MODEL,
      query: QUERY,
      documents: DOCUMENTS,
      top_n: 2,
    });

    const record = await settledRecord(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.interface, "rerank");
    assertEquals(record.receipt.kind, "rerank");
    assertEquals(record.receipt.units.search_units, 1);
    assertEquals(record.receipt.units.documents, 3);
    assertEquals(record.receipt.prices, { per_search: RERANK_SEARCH_PRICE.per_search });
    assertEquals(record.receipt.formula, `1 search units × 2000 = 2000`);
    assertEquals(record.receipt.amount, 2_000);
    assertEquals(record.receipt.charged, 2_000);
    assertEquals(record.cost, 2_000);
    assertEquals(response.headers.get("x-gateway-cost-units"), "2000");
    await assertWalletMatchesReceipts(s, opening, [record.receipt.charged]);
  },
);

Deno.test(
  "rerank: documents as {text} and return_documents; per-token price billed from the upstream's usage; 150 documents are 2 search units",
  serverTest,
  async () => {
    await using s = await setupRerank({ upstream: { flavour: "vllm" } });
    const opening = await s.gw.balance(s.keyId);
    const response = await postJson(s.gw, "/v1/rerank", s.key, {
      model: RERANK_TOKEN_MODEL,
      query: QUERY,
      documents: DOCUMENTS.map((text) => ({ text })),
      return_documents: true,
      rank_fields: ["text"],
    });
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("x-gateway-ignored-fields"), "rank_fields");
    const body = await response.json();
    assertEquals(body.results.length, 3);
    assertEquals(body.results[0], {
      index: 1,
      relevance_score: simulatedScore(QUERY, DOCUMENTS[1], 1),
      document: { text: DOCUMENTS[1] },
    });
    const tokens = simulatedTokens(QUERY, DOCUMENTS);
    const record = await settledRecord(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.usage_source, "upstream");
    assertEquals(record.input_tokens, tokens);
    const amount = Math.ceil(tokens * RERANK_TOKEN_PRICE.input / 1_000_000);
    assertEquals(record.receipt.amount, amount);
    assertEquals(
      record.receipt.formula,
      `ceil(${tokens} tokens × ${RERANK_TOKEN_PRICE.input} / 1000000) = ${amount}`,
    );

    const many = Array.from({ length: 150 }, (_, i) => `document number ${i}`);
    const second = await postJson(s.gw, "/v1/rerank", s.key, {
      model: RERANK_SEARCH_MODEL,
      query: "number 7",
      documents: many,
      top_n: 3,
    });
    assertEquals(second.status, 200);
    const secondBody = await second.json();
    assertEquals(secondBody.results.length, 3);
    assertEquals(secondBody.meta.billed_units.search_units, 2);
    const secondRecord = await settledRecord(s.gw, second.headers.get("x-request-id")!);
    assertEquals(secondRecord.receipt.amount, 4_000);
    await assertWalletMatchesReceipts(s, opening, [
      record.receipt.charged,
      secondRecord.receipt.charged,
    ]);
  },
);

Deno.test(
  "rerank on a Cohere v2 channel: strings sent to /v2/rerank, its meta read, the answer in the same shape",
  serverTest,
  async () => {
    await using s = await setupRerank({ rerankPath: "/v2/rerank" });
    const opening = await s.gw.balance(s.keyId);
    const response = await postJson(s.gw, "/v1/rerank", s.key, {
      model: RERANK_SEARCH_MODEL,
      query: QUERY,
      documents: [{ text: DOCUMENTS[0] }, DOCUMENTS[1]],
      return_documents: true,
    });
    assertEquals(response.status, 200);
    const body = await response.json();
    assertEquals(body.results.map((result: { index: number }) => result.index), [1, 0]);
    assertEquals(body.results[1].document, { text: DOCUMENTS[0] });
    const sent = s.upstream.requests[0];
    assertEquals(sent.path, "/v2/rerank");
    assertEquals(sent.body.documents, [DOCUMENTS[0], DOCUMENTS[1]]);
    assertEquals("return_documents" in sent.body, false);
    const record = await settledRecord(s.gw, response.headers.get("x-request-id")!);
    // Cohere reports no tokens: the estimate is logged, the search unit billed.
    assertEquals(record.usage_source, "estimate");
    assertEquals(record.receipt.amount, 2_000);
    await assertWalletMatchesReceipts(s, opening, [record.receipt.charged]);
  },
);

Deno.test(
  "rerank fails over to a second rerank channel when the first fails, and bills once",
  serverTest,
  async () => {
    await using s = await setupRerank({
      upstream: { faults: [{ kind: "status", status: 503 }] },
    });
    await using second = startRerankUpstream({ flavour: "vllm" });
    // The first channel is tried first (higher priority); the second takes over.
    await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, { priority: 10 });
    const backup = await s.gw.addChannel({
      name: "rerank-backup",
      type: "rerank",
      base_url: second.baseUrl,
      models: [RERANK_SEARCH_MODEL],
      model_map: { [RERANK_SEARCH_MODEL]: RERANK_UPSTREAM_MODEL },
    });
    const opening = await s.gw.balance(s.keyId);
    const response = await postJson(s.gw, "/v1/rerank", s.key, {
      model: RERANK_SEARCH_MODEL,
      query: QUERY,
      documents: DOCUMENTS,
    });
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("x-gateway-channel"), backup.id);
    assertEquals(s.upstream.requests.length, 1);
    assertEquals(second.requests.length, 1);
    const record = await settledRecord(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.attempts, 2);
    assertEquals(record.upstream_attempts[0].outcome, "failed");
    assertEquals(record.upstream_attempts[0].status, 503);
    assertEquals(record.receipt.amount, 2_000);
    await assertWalletMatchesReceipts(s, opening, [record.receipt.charged]);
  },
);

Deno.test(
  "rerank: an upstream answer with a wrong index or malformed JSON is a failed attempt, nothing charged",
  serverTest,
  async () => {
    await using s = await setupRerank({
      upstream: { faults: [{ kind: "bad_index" }, { kind: "malformed" }] },
    });
    const opening = await s.gw.balance(s.keyId);
    for (const fault of ["bad_answer", "bad_answer"]) {
      const response = await postJson(s.gw, "/v1/rerank", s.key, {
        model: RERANK_SEARCH_MODEL,
        query: QUERY,
        documents: DOCUMENTS,
      });
      assertEquals(response.status, 502);
      const body = await response.json();
      assertEquals(body.error.code, "upstream_unavailable");
      await s.gw.settle();
      const record = await s.gw.admin(
        "GET",
        `/admin/requests/${response.headers.get("x-request-id")}`,
      );
      assertEquals(record.body.upstream_attempts[0].error_class, fault);
    }
    assertEquals(s.upstream.requests.length, 2);
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "rerank bad input: 400 in OpenAI's envelope naming the field, no upstream call, nothing charged",
  serverTest,
  async () => {
    await using s = await setupRerank();
    const opening = await s.gw.balance(s.keyId);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ model: RERANK_SEARCH_MODEL, query: QUERY, documents: [] }, "documents", "empty"],
      [
        {
          model: RERANK_SEARCH_MODEL,
          query: QUERY,
          documents: Array.from({ length: 1001 }, () => "x"),
        },
        "documents",
        "1,000",
      ],
      [{ model: RERANK_SEARCH_MODEL, documents: DOCUMENTS }, "query", "query is required"],
      [{ model: RERANK_SEARCH_MODEL, query: QUERY, documents: DOCUMENTS, top_n: 0 }, "top_n", "1"],
      [
        { model: RERANK_SEARCH_MODEL, query: QUERY, documents: [{ title: "no text" }] },
        "documents.0",
        "text",
      ],
    ];
    for (const [request, param, words] of cases) {
      const response = await postJson(s.gw, "/v1/rerank", s.key, request);
      assertEquals(response.status, 400, JSON.stringify(request).slice(0, 100));
      const body = await response.json();
      assertEquals(body.error.type, "invalid_request_error");
      assertEquals(body.error.param, param);
      assertOk(body.error.message.includes(words), body.error.message);
    }
    // A text model is not a rerank model.
    await s.gw.putModel("chat-model", { kind: "text", price: { input: 1, output: 1 } });
    const wrongKind = await postJson(s.gw, "/v1/rerank", s.key, {
      model: "chat-model",
      query: QUERY,
      documents: DOCUMENTS,
    });
    assertEquals(wrongKind.status, 400);
    assertEquals((await wrongKind.json()).error.code, "wrong_model_kind");
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, opening, { untouched: true });
  },
);

Deno.test(
  "the channel Test button on a rerank channel makes one real rerank",
  serverTest,
  async () => {
    await using s = await setupRerank();
    const tested = await s.gw.admin("POST", `/admin/channels/${s.channelId}/test`, {});
    assertEquals(tested.status, 200, JSON.stringify(tested.body));
    assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
    assertEquals(tested.body.model, RERANK_SEARCH_MODEL);
    assertOk(tested.body.call.includes("rerank of 2 documents"), tested.body.call);
    assertEquals(s.upstream.requests[0].body.model, RERANK_UPSTREAM_MODEL);
    s.upstream.faults.push({ kind: "status", status: 401 });
    const refused = await s.gw.admin("POST", `/admin/channels/${s.channelId}/test`, {});
    assertEquals(refused.body.ok, false);
    assertEquals(refused.body.status, 401);
  },
);

Deno.test(
  "rerank and moderation requests are in the metrics by interface and in the usage rollups by model",
  serverTest,
  async () => {
    await using s = await setupRerank({ moderationPrice: { per_request: 300 } });
    const reranked = await postJson(s.gw, "/v1/rerank", s.key, {
      model: RERANK_SEARCH_MODEL,
      query: QUERY,
      documents: DOCUMENTS,
    });
    assertEquals(reranked.status, 200);
    await reranked.body?.cancel();
    await s.client.moderations.create({ input: "hello" });
    await s.gw.settle();
    const metrics = await (await fetch(`${s.gw.url}/metrics`)).text();
    assertOk(
      /gateway_requests_total\{[^}]*interface="rerank"[^}]*status="200"[^}]*\} 1/.test(metrics),
      "rerank counted",
    );
    assertOk(
      /gateway_requests_total\{[^}]*interface="moderation"[^}]*\} 1/.test(metrics),
      "moderation counted",
    );
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const usage = await s.gw.admin("GET", `/admin/usage?group_by=model&from=${from}&to=${to}`);
    assertEquals(usage.status, 200, JSON.stringify(usage.body));
    const byModel = Object.fromEntries(
      usage.body.data.map((row: { model: string }) => [row.model, row]),
    );
    assertEquals(byModel[RERANK_SEARCH_MODEL].requests, 1);
    assertEquals(byModel[RERANK_SEARCH_MODEL].cost, 2_000);
    assertEquals(byModel[RERANK_SEARCH_MODEL].input_tokens, simulatedTokens(QUERY, DOCUMENTS));
    assertEquals(byModel["omni-moderation-latest"].requests, 1);
    assertEquals(byModel["omni-moderation-latest"].cost, 300);
  },
);

Deno.test(
  "rerank: a wallet that cannot cover the hold is a 402 before any upstream call; a hung channel times out to the next",
  serverTest,
  async () => {
    await using s = await setupRerank({
      balance: 1_000,
      upstream: { faults: [{ kind: "hang" }] },
    });
    const poor = await postJson(s.gw, "/v1/rerank", s.key, {
      model: RERANK_SEARCH_MODEL,
      query: QUERY,
      documents: DOCUMENTS,
    });
    assertEquals(poor.status, 402);
    assertEquals((await poor.json()).error.type !== undefined, true);
    assertEquals(s.upstream.requests.length, 0);
    await assertNothingCharged(s, 1_000);

    await using second = startRerankUpstream();
    await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, { priority: 10, timeout_ms: 300 });
    await s.gw.addChannel({
      name: "rerank-backup",
      type: "rerank",
      base_url: second.baseUrl,
      models: [RERANK_TOKEN_MODEL],
      model_map: { [RERANK_TOKEN_MODEL]: RERANK_UPSTREAM_MODEL },
    });
    const answered = await postJson(s.gw, "/v1/rerank", s.key, {
      model: RERANK_TOKEN_MODEL,
      query: QUERY,
      documents: DOCUMENTS,
    });
    assertEquals(answered.status, 200);
    const record = await settledRecord(s.gw, answered.headers.get("x-request-id")!);
    assertEquals(record.upstream_attempts[0].error_class, "timeout");
    const balance = await s.gw.assertLedgerInvariant(s.keyId);
    assertEquals(1_000 - balance, record.receipt.charged);
  },
);

Deno.test(
  "a rerank channel's base_url carries no version or rerank path: the channel's rerank_path adds it",
  serverTest,
  async () => {
    await using s = await setupRerank();
    for (
      const base of [
        "https://api.jina.ai/v1",
        "https://api.cohere.com/v2/rerank",
        "http://h/rerank",
      ]
    ) {
      const refused = await s.gw.admin("POST", "/admin/channels", {
        name: "r",
        type: "rerank",
        base_url: base,
        keys: ["k"],
        models: [RERANK_SEARCH_MODEL],
      });
      assertEquals(refused.status, 400, base);
      assertOk(
        refused.body.error.message.includes("https://api.jina.ai"),
        refused.body.error.message,
      );
    }
    const wrongPath = await s.gw.admin("POST", "/admin/channels", {
      name: "r",
      type: "rerank",
      base_url: "https://api.cohere.com",
      rerank_path: "/v3/rerank",
      keys: ["k"],
      models: [RERANK_SEARCH_MODEL],
    });
    assertEquals(wrongPath.status, 400);
    assertEquals(wrongPath.body.error.param, "rerank_path");
  },
);
