/**
 * The messages interface: POST /v1/messages on every text channel type, and
 * POST /v1/messages/count_tokens (asked of an upstream that counts when the model has one, else
 * estimated; never billed).
 */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import {
  countTokensSchema,
  messagesRequestSchema,
  systemMessageWithoutBeta,
} from "../core/formats/anthropic/request_schema.ts";
import { invalidRequest } from "../core/errors.ts";
import { anthropicInbound } from "../core/text/inbound.ts";
import { countInputTokens } from "../core/text/count_tokens.ts";
import { headerList } from "../core/util/header_value.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textHandler } from "./text_answer.ts";
import { readJsonBody, validate } from "./validation.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

const messages = declareRoute({
  method: "post",
  path: "/v1/messages",
  tag: "anthropic",
  summary: "Messages (Anthropic)",
  security: "anthropic",
  errors: "anthropic",
  body: { name: "MessagesRequest", schema: messagesRequestSchema },
  answers: { "200": jsonAnswer("a message, or an SSE stream of events") },
});

const countTokens = declareRoute({
  method: "post",
  path: "/v1/messages/count_tokens",
  tag: "anthropic",
  summary: "Count a message's input tokens (Anthropic)",
  security: "anthropic",
  errors: "anthropic",
  body: { name: "CountTokensRequest", schema: countTokensSchema },
  answers: { "200": jsonAnswer("{input_tokens}") },
});

export function messagesRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(
    app,
    messages,
    requireKey(gateway, "anthropic"),
    textHandler(gateway, {
      schema: messagesRequestSchema,
      inboundOf: (request, hints) => {
        const index = systemMessageWithoutBeta(request, hints.anthropicBetas);
        if (index >= 0) {
          throw invalidRequest(
            "a message role is 'user' or 'assistant'; system instructions go in the top-level " +
              "'system' field (or send anthropic-beta: mid-conversation-system-2026-04-07)",
            `messages.${index}.role`,
          );
        }
        return anthropicInbound(request);
      },
    }),
  );

  serveRoute(app, countTokens, requireKey(gateway, "anthropic"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    const request = validate(countTokensSchema, body);
    c.get("context").model = request.model;
    // A messages request but for max_tokens, which counting needs not (and the upstream refuses).
    const inbound = anthropicInbound({ ...request, max_tokens: 1 });
    const result = await countInputTokens(c.get("scope"), inbound);
    const headers: Record<string, string> = { "x-gateway-token-count": result.source };
    if (result.ignored.length) headers["x-gateway-ignored-fields"] = headerList(result.ignored);
    return c.json({ input_tokens: result.count.input }, 200, headers);
  });
  return app;
}
