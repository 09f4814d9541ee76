/** POST /v1/responses: the OpenAI responses interface, on every text channel type. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { responsesRequestSchema } from "../core/formats/openai_responses/request_schema.ts";
import { responsesInbound } from "../core/text/inbound.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textHandler } from "./text_answer.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

const responses = declareRoute({
  method: "post",
  path: "/v1/responses",
  tag: "openai",
  summary: "Responses (OpenAI)",
  security: "openai",
  errors: "openai",
  body: { name: "ResponsesRequest", schema: responsesRequestSchema },
  answers: { "200": jsonAnswer("a response object, or an SSE stream of events") },
});

export function responsesRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(
    app,
    responses,
    requireKey(gateway, "openai"),
    textHandler(gateway, { schema: responsesRequestSchema, inboundOf: responsesInbound }),
  );
  return app;
}
