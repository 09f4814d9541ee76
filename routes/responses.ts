/** POST /v1/responses: the OpenAI responses interface, on every text channel type. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { responsesRequestSchema } from "../core/formats/openai_responses/request_schema.ts";
import { responsesInbound } from "../core/text/inbound.ts";
import { serveText } from "../core/text/serve_text.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textResponse } from "./text_answer.ts";
import { readJsonBody, validate } from "./validation.ts";

export function responsesRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  app.post("/v1/responses", requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    const request = validate(responsesRequestSchema, body);
    const context = c.get("context");
    context.model = request.model;
    const answer = await serveText(
      gateway,
      context,
      c.get("key"),
      responsesInbound(request),
      c.req.raw.signal,
    );
    return textResponse(answer);
  });
  return app;
}
