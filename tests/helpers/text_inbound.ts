/** Raw requests to each inbound text interface, and how each shows an error. */

import { postJson } from "./gateway.ts";
import { MODEL_OF, type TextChannelType, type TextSetup } from "./text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export interface Inbound {
  path(model: string, stream: boolean): string;
  headers(key: string): Record<string, string>;
  body(model: string, stream: boolean, extra?: Json): Json;
  /** The error message of a JSON error answer in this interface's envelope, or null. */
  errorOf(body: Json): string | null;
  /** Whether a stream's text carries this format's in-stream error. */
  streamError(text: string): boolean;
}

export const INBOUND: Record<string, Inbound> = {
  chat: {
    path: () => "/v1/chat/completions",
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (model, stream, extra = {}) => ({
      model,
      messages: [{ role: "user", content: "hi" }],
      stream,
      ...extra,
    }),
    errorOf: (body) => typeof body?.error?.type === "string" ? body.error.message : null,
    streamError: (text) => /data: \{"error":\{/.test(text),
  },
  responses: {
    path: () => "/v1/responses",
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (model, stream, extra = {}) => ({ model, input: "hi", stream, ...extra }),
    errorOf: (body) => typeof body?.error?.type === "string" ? body.error.message : null,
    streamError: (text) => text.includes('event: error\ndata: {"type":"error"'),
  },
  messages: {
    path: () => "/v1/messages",
    headers: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
    body: (model, stream, extra = {}) => ({
      model,
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
      stream,
      ...extra,
    }),
    errorOf: (body) => body?.type === "error" ? body.error.message : null,
    streamError: (text) => text.includes('event: error\ndata: {"type":"error"'),
  },
  "generate-content": {
    path: (model, stream) =>
      `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    headers: (key) => ({ "x-goog-api-key": key }),
    body: (_model, _stream, extra = {}) => ({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      ...extra,
    }),
    errorOf: (body) => typeof body?.error?.status === "string" ? body.error.message : null,
    streamError: (text) => /data: \{"error":\{/.test(text),
  },
};

export function send(
  s: TextSetup,
  inbound: Inbound,
  type: TextChannelType,
  stream: boolean,
  extra?: Json,
) {
  const model = MODEL_OF[type];
  return postJson(
    s.gw,
    inbound.path(model, stream),
    null,
    inbound.body(model, stream, extra),
    inbound.headers(s.key),
  );
}
