/**
 * The rerank interface: POST /v1/rerank in the Cohere/Jina shape (Dify's, FastGPT's and vLLM's
 * clients send it with a Bearer key). Errors are OpenAI's envelope, as on every /v1 route.
 */

import { Hono } from "hono";
import { invalidRequest } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { KNOWN_RERANK_FIELDS, rerankRequestSchema } from "../core/rerank/request_schema.ts";
import { serveRerank } from "../core/rerank/serve_rerank.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { readJsonBody, validate } from "./validation.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

const rerank = declareRoute({
  method: "post",
  path: "/v1/rerank",
  tag: "rerank",
  summary: "Rank documents by relevance to a query (Cohere/Jina shape)",
  security: "openai",
  errors: "openai",
  body: { name: "RerankRequest", schema: rerankRequestSchema },
  answers: {
    "200": jsonAnswer(
      "{id, model, results: [{index, relevance_score, document?: {text}}], usage, meta}",
    ),
  },
});

/** The rerank route. */
export function rerankRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, rerank, requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw invalidRequest("The request body must be a JSON object");
    }
    const fields = body as Record<string, unknown>;
    if (typeof fields.model === "string") c.get("context").model = fields.model;
    const request = validate(rerankRequestSchema, fields);
    const ignoredFields = Object.keys(fields).filter((field) => !KNOWN_RERANK_FIELDS.has(field));
    const answer = await serveRerank(c.get("scope"), { request, ignoredFields });
    return c.json(answer.body, 200, answer.headers);
  });
  return app;
}
