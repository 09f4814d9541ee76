/** The request log names the client interface exactly: chat and responses are different APIs. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { MODEL_OF, setupText } from "../helpers/text_setup.ts";

Deno.test(
  "request log: interface is openai-chat, openai-responses, anthropic or gemini",
  serverTest,
  async () => {
    await using s = await setupText();
    const model = MODEL_OF.openai;
    const headers = { authorization: `Bearer ${s.key}`, "content-type": "application/json" };
    const sent: Array<[string, string, unknown]> = [
      ["openai-chat", "/v1/chat/completions", {
        model,
        messages: [{ role: "user", content: "hi" }],
      }],
      ["openai-responses", "/v1/responses", { model, input: "hi" }],
      ["anthropic", "/v1/messages", {
        model,
        max_tokens: 20,
        messages: [{ role: "user", content: "hi" }],
      }],
      ["gemini", `/v1beta/models/${model}:generateContent`, {
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
      }],
    ];
    const idsByInterface = new Map<string, string>();
    for (const [name, path, body] of sent) {
      const extra: Record<string, string> = path.startsWith("/v1/messages")
        ? { "anthropic-version": "2023-06-01" }
        : {};
      const response = await fetch(`${s.gw.url}${path}`, {
        method: "POST",
        headers: { ...headers, ...extra },
        body: JSON.stringify(body),
      });
      await response.body?.cancel();
      assertEquals(response.status, 200, `${name}: ${path}`);
      idsByInterface.set(name, response.headers.get("x-request-id")!);
    }
    await s.gw.settle();
    const records = (await s.gw.admin("GET", "/admin/requests?limit=100")).body.data as Array<
      { id: string; interface: string }
    >;
    for (const [name, id] of idsByInterface) {
      assertEquals(records.find((record) => record.id === id)?.interface, name);
    }
  },
);

Deno.test(
  "request log: latency is the answer's, not the wait for the request's aggregated charge",
  serverTest,
  async () => {
    await using s = await setupText();
    const model = MODEL_OF.openai;
    const headers = { authorization: `Bearer ${s.key}`, "content-type": "application/json" };
    const elapsedById = new Map<string, number>();
    for (
      const [path, body] of [
        ["/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }] }],
        ["/v1/responses", { model, input: "hi" }],
      ] as const
    ) {
      const started = performance.now();
      const response = await fetch(`${s.gw.url}${path}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      await response.text();
      elapsedById.set(response.headers.get("x-request-id")!, performance.now() - started);
    }
    await s.gw.settle();
    const records = (await s.gw.admin("GET", "/admin/requests?limit=100")).body.data as Array<
      { id: string; latency_ms: number; receipt?: { ledger_entry_ids: string[] } }
    >;
    for (const [id, elapsed] of elapsedById) {
      const record = records.find((candidate) => candidate.id === id)!;
      // Charged in an aggregated entry written after the answer: the receipt names it, and the
      // time until it was written is not the request's.
      assertEquals(record.receipt?.ledger_entry_ids.length, 1);
      assertOk(
        record.latency_ms <= elapsed,
        `logged ${record.latency_ms} ms, the client waited ${elapsed.toFixed(2)} ms`,
      );
    }
  },
);
