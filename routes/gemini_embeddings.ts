/**
 * Gemini's embedding interface: POST /v1beta/models/{model}:embedContent and
 * :batchEmbedContents (also under /v1/models/), on `gemini` channels and, converted, on `openai`
 * channels. Answers `{embedding: {values}}` and `{embeddings: [{values}]}`; errors in Google's
 * envelope; the key as the other Gemini routes take it (x-goog-api-key, ?key=).
 */

import { Hono } from "hono";
import type { Context } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { GatewayError } from "../core/errors.ts";
import { serveEmbeddings } from "../core/embeddings/embedding_service.ts";
import {
  batchEmbedContentsJob,
  batchEmbedContentsRequestSchema,
  embedContentJob,
  embedContentRequestSchema,
  unknownGeminiFields,
} from "../core/embeddings/gemini_request.ts";
import { normaliseProtoJsonNames } from "../core/formats/gemini/proto_json_names.ts";
import { GEMINI_EMBED_SEGMENT } from "../core/telemetry/interface_name.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { readJsonBody } from "./validation.ts";
import { type ApiRoute, declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

async function handle(gateway: Gateway, c: Context<AppEnv>): Promise<Response> {
  const target = c.req.param("model") ?? "";
  const separator = target.lastIndexOf(":");
  const model = target.slice(0, separator).replace(/^models\//, "");
  const method = target.slice(separator + 1);
  c.get("context").model = model;
  const json = normaliseProtoJsonNames(
    await readJsonBody(c.req.raw, gateway.options.maxBodyBytes),
  );
  const job = method === "embedContent"
    ? embedContentJob(model, json)
    : batchEmbedContentsJob(model, json);
  // Fields no embedding request takes (e.g. Vertex's autoTruncate) are named, not sent.
  const requests = method === "embedContent" ? [json] : (json as { requests: object[] }).requests;
  const ignoredFields = unknownGeminiFields(requests);
  const answer = await serveEmbeddings(c.get("scope"), { job, base64: false, ignoredFields });
  const vectors = answer.vectors.map((values) => ({ values }));
  if (method === "embedContent") {
    if (vectors.length !== 1) {
      throw new GatewayError("upstream_bad_answer", 502, "The upstream answered no embedding");
    }
    return c.json({ embedding: vectors[0] }, 200, answer.headers);
  }
  return c.json({ embeddings: vectors }, 200, answer.headers);
}

/** The two operations under `/{version}/models/`, served by one Hono route. */
function embedOperations(version: "v1beta" | "v1"): ApiRoute[] {
  const operation = (method: string) => ({
    method: "post" as const,
    path: `/${version}/models/{model}:${method}`,
    registeredAs: `/${version}/models/${GEMINI_EMBED_SEGMENT}`,
    tag: "gemini",
    security: "gemini" as const,
    errors: "gemini" as const,
  });
  return [
    declareRoute({
      ...operation("embedContent"),
      summary: "Embed one content (Gemini): `taskType`, `title`, `outputDimensionality`",
      body: { name: "EmbedContentRequest", schema: embedContentRequestSchema },
      answers: { "200": jsonAnswer("an EmbedContentResponse: {embedding: {values}}") },
    }),
    declareRoute({
      ...operation("batchEmbedContents"),
      summary: "Embed up to 100 contents (Gemini), one vector each",
      body: { name: "BatchEmbedContentsRequest", schema: batchEmbedContentsRequestSchema },
      answers: {
        "200": jsonAnswer("a BatchEmbedContentsResponse: {embeddings: [{values}]}"),
      },
    }),
  ];
}

export function geminiEmbeddingRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  for (const version of ["v1beta", "v1"] as const) {
    serveRoute(
      app,
      embedOperations(version),
      requireKey(gateway, "gemini"),
      (c) => handle(gateway, c),
    );
  }
  return app;
}
