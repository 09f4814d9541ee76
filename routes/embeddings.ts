/**
 * POST /v1/embeddings: OpenAI's embeddings interface, on `openai` channels (passed through) and
 * `gemini` channels (converted). The answer is OpenAI's list of vectors, as floats or as base64
 * of little-endian float32 bytes (`encoding_format`), whatever the channel answered.
 */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { serveEmbeddings } from "../core/embeddings/embedding_service.ts";
import { withModelRenamed } from "../core/embeddings/pass_through.ts";
import { embeddingsRequestSchema, openAIEmbeddingsJob } from "../core/embeddings/openai_request.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { readJsonBody } from "./validation.ts";
import type { RequestScope } from "../core/scope.ts";
import type { FastRoute } from "./fast_path.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

const embeddings = declareRoute({
  method: "post",
  path: "/v1/embeddings",
  tag: "embeddings",
  summary: "Create embeddings (OpenAI): one vector per input, as floats or base64",
  security: "openai",
  errors: "openai",
  body: { name: "EmbeddingsRequest", schema: embeddingsRequestSchema },
  answers: {
    "200": jsonAnswer(
      "{object: 'list', data: [{object: 'embedding', index, embedding}], model, usage}",
    ),
  },
});

/** The answer to an authenticated embeddings request's `body`, in OpenAI's shape. */
async function embeddingsResponse(
  scope: RequestScope,
  body: Record<string, unknown>,
): Promise<Response> {
  const { job, base64, ignoredFields } = openAIEmbeddingsJob(body);
  scope.context.model = job.model;
  const answer = await serveEmbeddings(scope, { job, base64, ignoredFields });
  const passed = answer.raw === undefined ? null : withModelRenamed(answer.raw, job.model);
  const headers = { ...answer.headers, "content-type": "application/json" };
  if (passed !== null) return new Response(passed as Uint8Array<ArrayBuffer>, { headers });
  return new Response(
    JSON.stringify({
      object: "list",
      data: answer.vectors.map((vector, index) => ({
        object: "embedding",
        index,
        embedding: vector,
      })),
      model: job.model,
      usage: { prompt_tokens: answer.inputTokens, total_tokens: answer.inputTokens },
    }),
    { headers },
  );
}

/** POST /v1/embeddings on the fast path (routes/fast_path.ts). */
export const embeddingsFastRoute: FastRoute = {
  path: "/v1/embeddings",
  serve: (scope, body) => embeddingsResponse(scope, body),
};

export function embeddingsRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, embeddings, requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    return await embeddingsResponse(c.get("scope"), body);
  });
  return app;
}
