/** POST /v1/chat/completions: the OpenAI-compatible chat interface, on every text channel type. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { chatRequestSchema } from "../core/formats/openai_chat/request_schema.ts";
import { chatInbound } from "../core/text/inbound.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textHandler } from "./text_answer.ts";

export function chatCompletionsRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post(
    "/v1/chat/completions",
    requireKey(gateway, "openai"),
    textHandler(gateway, { schema: chatRequestSchema, inboundOf: chatInbound }),
  );
  return app;
}
