/** POST /v1/responses: the OpenAI responses interface, on every text channel type. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { responsesRequestSchema } from "../core/formats/openai_responses/request_schema.ts";
import { responsesInbound } from "../core/text/inbound.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textHandler } from "./text_answer.ts";

export function responsesRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post(
    "/v1/responses",
    requireKey(gateway, "openai"),
    textHandler(gateway, { schema: responsesRequestSchema, inboundOf: responsesInbound }),
  );
  return app;
}
