/**
 * A new inbound format is one folder and one row: a "plain-text" interface is written into a temp
 * folder (its own path, credential header, error envelope, model-list shape and codec), its
 * object is added to the table of text interfaces before the gateway is built, and the real
 * gateway then serves it end to end through a channel of an existing type (`openai`).
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat, UPSTREAM_MODEL } from "../helpers/text_setup.ts";
import { assertNothingCharged, requestsBilled } from "../helpers/assert_money.ts";
import { registerTextInterface } from "../../core/formats/interfaces.ts";
import type { TextInterface } from "../../core/formats/text_interface.ts";

const core = (path: string) => new URL(`../../core/${path}`, import.meta.url).href;

/** The folder's one file: the interface object, codec included. */
const INTERFACE_TS = `
import { z } from "zod";
import type { TextInterface } from "${core("formats/text_interface.ts")}";
import type { NeutralEvent, NeutralResponse } from "${core("formats/neutral.ts")}";

const requestSchema = z.object({
  model: z.string(),
  prompt: z.string().min(1),
  stream: z.boolean().optional(),
});

const textOf = (answer: NeutralResponse) =>
  answer.parts.map((part) => part.type === "text" ? part.text : "").join("");
const frame = (data: unknown) => "data: " + JSON.stringify(data) + "\\n\\n";
const notUpstream = () => {
  throw new Error("no channel speaks plain-text");
};

export const plainTextInterface: TextInterface = {
  format: "plain-text",
  name: "plain-text",
  route: "POST /v1/plain/complete",
  paths: ["/v1/plain"],
  family: {
    name: "plain",
    readCredential: ({ headers }) => {
      const secret = headers.get("x-plain-key");
      return secret ? { secret, form: "x-plain-key" } : undefined;
    },
    missingCredential: "No API key given; send it in the x-plain-key header",
    ownsPath: (path) => path.startsWith("/v1/plain"),
    sendsOwnCredential: ({ headers }) => headers.has("x-plain-key"),
    errorAnswer: (error, requestId) => ({
      status: error.status,
      body: { problem: { code: error.code, message: error.message, request_id: requestId } },
    }),
    modelList: (models) => ({ models: models.map((model) => model.id) }),
    model: (model) => ({ model: model.id }),
  },
  codec: {
    encodeRequest: notUpstream,
    decodeResponse: notUpstream,
    usageOf: notUpstream,
    renameModel: notUpstream,
    streamDecoder: notUpstream,
    encodeResponse: (answer, model) => ({
      model,
      text: textOf(answer),
      stop: answer.stop,
      tokens: { input: answer.usage?.input_tokens, output: answer.usage?.output_tokens },
    }),
    streamEncoder: () => ({
      encode: (event: NeutralEvent) => event.type === "text" ? frame({ text: event.text }) : "",
      end: () => frame({ done: true }),
      error: (message, code) => frame({ problem: { code, message } }),
    }),
  },
  passThroughBody: notUpstream,
  fewestOutputTokens: 1,
  readRequest: (body: z.infer<typeof requestSchema>) => ({
    model: body.model,
    stream: body.stream === true,
    exclusive: null,
    decode: () => ({
      model: body.model,
      system: [],
      messages: [{ role: "user", parts: [{ type: "text", text: body.prompt }] }],
      tools: [],
      stream: body.stream === true,
      options: {},
      fieldOf: {},
      unmapped: [],
    }),
  }),
  sharedRoute: { path: "/v1/plain/complete", schema: requestSchema },
};
`;

/** Writes the format's folder and adds its row; returns what takes the row out again. */
async function addPlainTextFormat(): Promise<() => void> {
  const folder = await Deno.makeTempDir({ prefix: "plain_text-" });
  await Deno.writeTextFile(`${folder}/interface.ts`, INTERFACE_TS);
  try {
    const module: { plainTextInterface: TextInterface } = await import(
      new URL(`file://${folder}/interface.ts`).href
    );
    return registerTextInterface(module.plainTextInterface);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

Deno.test(
  "a fifth text interface in a temp folder with one row is served end to end",
  serverTest,
  async () => {
    const removeRow = await addPlainTextFormat();
    try {
      await using s = await setupChat();
      const url = `${s.gw.url}/v1/plain/complete`;
      const headers = { "x-plain-key": s.key, "content-type": "application/json" };
      const prompt = "Say something plain";

      const chat = await s.client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: prompt }],
      });

      const whole = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: MODEL, prompt }),
      });
      const answer = await whole.json();
      assertEquals(whole.status, 200, JSON.stringify(answer));
      assertEquals(answer.model, MODEL);
      assertEquals(answer.text, chat.choices[0].message.content);
      assertEquals(answer.tokens, {
        input: chat.usage!.prompt_tokens,
        output: chat.usage!.completion_tokens,
      });
      const upstream = s.upstream.requests.at(-1)!;
      assertEquals(upstream.path, "/v1/chat/completions");
      assertEquals(upstream.body.model, UPSTREAM_MODEL);
      assertEquals(upstream.body.messages, [{ role: "user", content: prompt }]);

      const streamed = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: MODEL, prompt, stream: true }),
      });
      assertEquals(streamed.status, 200);
      assertOk(streamed.headers.get("content-type")?.startsWith("text/event-stream"));
      const frames = (await streamed.text()).split("\n\n").filter(Boolean)
        .map((line) => JSON.parse(line.slice("data: ".length)));
      assertEquals(frames.at(-1), { done: true });
      assertEquals(
        frames.slice(0, -1).map((one) => one.text).join(""),
        chat.choices[0].message.content,
      );

      const models = await fetch(`${s.gw.url}/v1/models`, { headers: { "x-plain-key": s.key } });
      assertEquals(await models.json(), { models: [MODEL] });

      // Declared with its row: /openapi.json documents the new route.
      const document = await (await fetch(`${s.gw.url}/openapi.json`)).json();
      assertEquals(Object.keys(document.paths["/v1/plain/complete"] ?? {}), ["post"]);

      await s.gw.settle();
      assertEquals(requestsBilled(await s.gw.ledger(s.keyId)), 3);
      const records = (await s.gw.admin("GET", "/admin/requests?interface=plain-text")).body
        .data as Array<{ interface: string; status: number }>;
      assertEquals(records.map((record) => [record.interface, record.status]), [
        ["plain-text", 200],
        ["plain-text", 200],
      ]);
    } finally {
      removeRow();
    }
  },
);

Deno.test(
  "a fifth text interface answers a missing key and a bad body in its own envelope, free",
  serverTest,
  async () => {
    const removeRow = await addPlainTextFormat();
    try {
      await using s = await setupChat();
      const opening = await s.gw.balance(s.keyId);
      const url = `${s.gw.url}/v1/plain/complete`;

      const keyless = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, prompt: "hi" }),
      });
      assertEquals(keyless.status, 401);
      const missing = await keyless.json();
      assertEquals(missing.problem.code, "missing_api_key");
      assertEquals(missing.problem.message, "No API key given; send it in the x-plain-key header");
      assertEquals(missing.problem.request_id, keyless.headers.get("x-request-id"));

      const bad = await fetch(url, {
        method: "POST",
        headers: { "x-plain-key": s.key, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, prompt: "" }),
      });
      assertEquals(bad.status, 400);
      assertOk((await bad.json()).problem.message.length > 0);
      assertEquals(s.upstream.requests.length, 0);

      await s.gw.settle();
      await assertNothingCharged(s, opening, { untouched: true });
    } finally {
      removeRow();
    }
  },
);
