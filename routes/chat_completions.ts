/** POST /v1/chat/completions: the OpenAI-compatible chat interface. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { chatRequestSchema } from "../core/formats/openai_chat/request_schema.ts";
import { chatInbound } from "../core/text/inbound.ts";
import { serveText } from "../core/text/serve_text.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textResponse } from "./text_answer.ts";
import { readJsonBody, validate } from "./validation.ts";

/** The chat-completions sub-app. */
export function chatCompletionsRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post("/v1/chat/completions", requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    const request = validate(chatRequestSchema, body);
    const context = c.get("context");
    context.model = request.model;
    const answer = await serveText(
      gateway,
      context,
      c.get("key"),
      chatInbound(request),
      c.req.raw.signal,
    );
    return textResponse(answer);
  });
  return app;
}
