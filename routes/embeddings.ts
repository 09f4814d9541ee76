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

export function embeddingsRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, embeddings, requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    const { job, base64, ignoredFields } = openAIEmbeddingsJob(body);
    c.get("context").model = job.model;
    const answer = await serveEmbeddings(c.get("scope"), { job, base64, ignoredFields });
    const passed = answer.raw === undefined ? null : withModelRenamed(answer.raw, job.model);
    if (passed !== null) {
      return c.body(passed as Uint8Array<ArrayBuffer>, 200, {
        ...answer.headers,
        "content-type": "application/json",
      });
    }
    return c.json(
      {
        object: "list",
        data: answer.vectors.map((vector, index) => ({
          object: "embedding",
          index,
          embedding: vector,
        })),
        model: job.model,
        usage: { prompt_tokens: answer.inputTokens, total_tokens: answer.inputTokens },
      },
      200,
      answer.headers,
    );
  });
  return app;
}
