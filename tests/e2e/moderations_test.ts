/**
 * POST /v1/moderations end to end with the openai SDK's `moderations.create`: text and image
 * input passed through to an `openai` channel and answered as OpenAI answers; free by default
 * yet logged with a receipt of 0, priced when the catalog says; rate-limited; bad input refused
 * in OpenAI's envelope with nothing charged. Each case checks the wallet against the receipts.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { MODERATION_MODEL, settledRecord, setupRerank } from "../helpers/rerank_setup.ts";

Deno.test(
  "moderations.create with text: OpenAI's answer passed through, free, logged with a receipt of 0",
  serverTest,
  async () => {
    // The built-in catalog entry: nothing to add but a channel that lists it.
    await using s = await setupRerank({ moderationPrice: null });
    assertEquals(
      (await s.gw.admin("GET", `/admin/models/${MODERATION_MODEL}`)).body.source,
      "default",
    );
    const opening = await s.gw.balance(s.keyId);
    const { data, response } = await s.client.moderations.create({
      input: ["I will kill the process", "a calm sentence"],
    }).withResponse();
    // No model: OpenAI's default, answered as its snapshot.
    assertEquals(s.moderation.requests[0].body.model, MODERATION_MODEL);
    assertEquals(data.model, "omni-moderation-2024-09-26");
    assertOk(data.id.startsWith("modr-"));
    assertEquals(data.results.length, 2);
    assertEquals(data.results[0].flagged, true);
    assertEquals(data.results[0].categories.violence, true);
    assertEquals(data.results[0].category_applied_input_types?.violence, ["text"]);
    assertEquals(data.results[1].flagged, false);

    const record = await settledRecord(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.interface, "moderation");
    assertEquals(record.model, MODERATION_MODEL);
    assertEquals(record.status, 200);
    assertEquals(record.receipt.kind, "moderation");
    assertEquals(record.receipt.units, { requests: 1, inputs: 2 });
    assertEquals(record.receipt.formula, "1 request × 0 = 0");
    assertEquals(record.receipt.amount, 0);
    assertEquals(record.cost, 0);
    const balance = await s.gw.assertLedgerInvariant(s.keyId);
    assertEquals(balance, opening);
  },
);

Deno.test(
  "moderations.create with an image: multimodal input is one result; a priced model bills per request",
  serverTest,
  async () => {
    await using s = await setupRerank({ moderationPrice: { per_request: 300 } });
    const opening = await s.gw.balance(s.keyId);
    const { data, response } = await s.client.moderations.create({
      model: MODERATION_MODEL,
      input: [
        { type: "text", text: "look at this" },
        { type: "image_url", image_url: { url: "https://example.com/violent.png" } },
      ],
    }).withResponse();
    assertEquals(data.results.length, 1);
    assertEquals(data.results[0].categories.violence, true);
    assertEquals(data.results[0].category_applied_input_types?.violence, ["text", "image"]);
    assertEquals(data.results[0].category_applied_input_types?.hate, ["text"]);
    assertEquals(s.moderation.requests[0].body.input, [
      { type: "text", text: "look at this" },
      { type: "image_url", image_url: { url: "https://example.com/violent.png" } },
    ]);
    const record = await settledRecord(s.gw, response.headers.get("x-request-id")!);
    assertEquals(record.receipt.amount, 300);
    assertEquals(record.receipt.charged, 300);
    assertEquals(record.receipt.formula, "1 request × 300 = 300");
    const balance = await s.gw.assertLedgerInvariant(s.keyId);
    assertEquals(opening - balance, record.receipt.charged);
    const verified = await s.gw.admin("GET", `/admin/keys/${s.keyId}/ledger/verify`);
    assertEquals(verified.body.ok, true);
  },
);

Deno.test(
  "moderation bad input: 400 in OpenAI's envelope, no upstream call, nothing charged",
  serverTest,
  async () => {
    await using s = await setupRerank({ moderationPrice: { per_request: 300 } });
    const opening = await s.gw.balance(s.keyId);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ input: "" }, "input"],
      [{ input: [] }, "input"],
      [{}, "input"],
      [{ input: [{ type: "audio", data: "x" }] }, "input.0.type"],
      [{ input: "fine", model: "" }, "model"],
    ];
    for (const [request, param] of cases) {
      const response = await postJson(s.gw, "/v1/moderations", s.key, request);
      assertEquals(response.status, 400, JSON.stringify(request));
      const body = await response.json();
      assertEquals(body.error.type, "invalid_request_error");
      assertEquals(body.error.param, param, JSON.stringify(body));
    }
    // Through the SDK too: an empty input is a BadRequestError.
    let refused: unknown;
    try {
      await s.client.moderations.create({ input: "" });
    } catch (error) {
      refused = error;
    }
    assertOk(refused instanceof OpenAI.BadRequestError, String(refused));
    assertEquals(s.moderation.requests.length, 0);
    await assertNothingCharged(s, opening, { untouched: true });
  },
);

Deno.test(
  "moderation: the upstream's refusal is the client's 400; a failing channel is released, nothing charged",
  serverTest,
  async () => {
    await using s = await setupRerank({
      moderationPrice: { per_request: 300 },
      moderationFaults: [{ kind: "status", status: 500 }],
    });
    const opening = await s.gw.balance(s.keyId);
    const failed = await postJson(s.gw, "/v1/moderations", s.key, { input: "hello" });
    assertEquals(failed.status, 502);
    // text-moderation models take no images: the upstream's 400 reaches the client.
    await s.gw.admin("PUT", "/admin/models/text-moderation-latest", {
      kind: "moderation",
      price: { per_request: 300 },
    });
    const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
    const openai = channels.find((channel: { type: string }) => channel.type === "openai");
    await s.gw.admin("PATCH", `/admin/channels/${openai.id}`, {
      models: [MODERATION_MODEL, "text-moderation-latest"],
    });
    const refused = await postJson(s.gw, "/v1/moderations", s.key, {
      model: "text-moderation-latest",
      input: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }],
    });
    assertEquals(refused.status, 400);
    assertOk((await refused.json()).error.message.includes("does not accept images"));
    await assertNothingCharged(s, opening);
  },
);

Deno.test(
  "moderation requests count against the key's requests per minute",
  serverTest,
  async () => {
    await using s = await setupRerank({ key: { rpm: 2 } });
    for (let i = 0; i < 2; i++) {
      assertEquals((await postJson(s.gw, "/v1/moderations", s.key, { input: "hi" })).status, 200);
    }
    const limited = await postJson(s.gw, "/v1/moderations", s.key, { input: "hi" });
    assertEquals(limited.status, 429);
    assertEquals((await limited.json()).error.type !== undefined, true);
    assertEquals(s.moderation.requests.length, 2);
  },
);

Deno.test(
  "the channel Test button on a moderation model of an openai channel makes one moderation",
  serverTest,
  async () => {
    await using s = await setupRerank();
    const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
    const openai = channels.find((channel: { type: string }) => channel.type === "openai");
    const tested = await s.gw.admin("POST", `/admin/channels/${openai.id}/test`, {
      model: MODERATION_MODEL,
    });
    assertEquals(tested.status, 200, JSON.stringify(tested.body));
    assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
    assertEquals(tested.body.call, "one moderation of one short text");
    assertEquals(s.moderation.requests.length, 1);
  },
);

Deno.test(
  "moderation and rerank on a key with spend caps: held and settled in the ledger, receipts match",
  serverTest,
  async () => {
    await using s = await setupRerank({ key: { spend_limits: { day: 1_000_000 } } });
    const opening = await s.gw.balance(s.keyId);
    const moderated = await postJson(s.gw, "/v1/moderations", s.key, { input: "hello" });
    assertEquals(moderated.status, 200);
    await moderated.body?.cancel();
    const reranked = await postJson(s.gw, "/v1/rerank", s.key, {
      model: "rerank-search",
      query: "q",
      documents: ["a", "b"],
    });
    assertEquals(reranked.status, 200, await reranked.clone().text());
    await reranked.body?.cancel();
    const free = await settledRecord(s.gw, moderated.headers.get("x-request-id")!);
    const paid = await settledRecord(s.gw, reranked.headers.get("x-request-id")!);
    assertEquals(free.receipt.status, "settled");
    assertEquals(free.receipt.charged, 0);
    assertEquals(paid.receipt.status, "settled");
    assertEquals(paid.receipt.charged, 2_000);
    const balance = await s.gw.assertLedgerInvariant(s.keyId);
    assertEquals(opening - balance, 2_000);
    await assertNothingCharged(s, balance);
  },
);
