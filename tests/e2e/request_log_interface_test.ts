/** The request log names the client interface exactly: chat and responses are different APIs. */

import { assertEquals } from "../helpers/assert.ts";
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
