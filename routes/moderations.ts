/**
 * The moderation interface: POST /v1/moderations in OpenAI's shape, passed through to `openai`
 * channels. Errors are OpenAI's envelope.
 */

import { Hono } from "hono";
import { invalidRequest } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import {
  DEFAULT_MODERATION_MODEL,
  KNOWN_MODERATION_FIELDS,
  moderationRequestSchema,
} from "../core/moderation/request_schema.ts";
import { serveModeration } from "../core/moderation/serve_moderation.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { readJsonBody, validate } from "./validation.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

const moderations = declareRoute({
  method: "post",
  path: "/v1/moderations",
  tag: "moderations",
  summary: "Classify text and images as potentially harmful (OpenAI Moderations)",
  security: "openai",
  errors: "openai",
  body: { name: "ModerationRequest", schema: moderationRequestSchema },
  answers: {
    "200": jsonAnswer(
      "{id, model, results: [{flagged, categories, category_scores, category_applied_input_types}]}",
    ),
  },
});

/** The moderation route. */
export function moderationRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, moderations, requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw invalidRequest("The request body must be a JSON object");
    }
    const fields = body as Record<string, unknown>;
    // Named in the request's record even when the body is refused.
    c.get("context").model = typeof fields.model === "string"
      ? fields.model
      : DEFAULT_MODERATION_MODEL;
    const request = validate(moderationRequestSchema, fields);
    const ignoredFields = Object.keys(fields).filter((field) =>
      !KNOWN_MODERATION_FIELDS.has(field)
    );
    const answer = await serveModeration(c.get("scope"), { request, ignoredFields });
    return c.json(answer.body, 200, answer.headers);
  });
  return app;
}
