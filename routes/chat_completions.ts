/** POST /v1/chat/completions: the OpenAI-compatible chat interface, on every text channel type. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { chatRequestSchema } from "../core/formats/openai_chat/request_schema.ts";
import { chatInbound } from "../core/text/inbound.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textHandler } from "./text_answer.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

const chatCompletions = declareRoute({
  method: "post",
  path: "/v1/chat/completions",
  tag: "openai",
  summary: "Chat completions (OpenAI); `stream: true` answers server-sent events",
  security: "openai",
  errors: "openai",
  body: { name: "ChatCompletionsRequest", schema: chatRequestSchema },
  answers: { "200": jsonAnswer("a chat completion, or an SSE stream of chunks") },
});

export function chatCompletionsRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(
    app,
    chatCompletions,
    requireKey(gateway, "openai"),
    textHandler(gateway, { schema: chatRequestSchema, inboundOf: chatInbound }),
  );
  return app;
}
