/** POST /v1/chat/completions: the OpenAI-compatible chat interface. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { completeChat } from "../core/chat_completions.ts";
import { chatRequestSchema } from "../core/formats/openai_chat/request_schema.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { readJsonBody, validate } from "./validation.ts";

/** The chat-completions sub-app. */
export function chatCompletionsRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post("/v1/chat/completions", requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    const request = validate(chatRequestSchema, body);
    const context = c.get("context");
    context.model = request.model;
    const answer = await completeChat(gateway, context, c.get("key"), request, c.req.raw.signal);
    if (answer.kind === "json") {
      return new Response(answer.body, {
        headers: { "content-type": "application/json", ...answer.headers },
      });
    }
    return new Response(answer.stream, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
        ...answer.headers,
      },
    });
  });
  return app;
}
