/**
 * The generate-content interface: POST /v1beta/models/{model}:generateContent,
 * :streamGenerateContent and :countTokens, also under /v1/models/ for newer SDKs. Text models go
 * to any text channel (converted unless the channel is `gemini`); image models to the image
 * channels. Counting tokens is never billed.
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import { GatewayError, invalidRequest } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import {
  type GenerateContentRequest,
  serveGenerateContentImages,
} from "../core/images/generate_content_images.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { readJsonBody, validate } from "./validation.ts";
import { normaliseProtoJsonNames } from "../core/formats/gemini/proto_json_names.ts";
import { geminiInbound } from "../core/text/inbound.ts";
import { serveText } from "../core/text/serve_text.ts";
import { textResponse } from "./text_answer.ts";
import { queryChoice } from "./params.ts";
import { interfaceOfKind, modelForKey } from "../core/channels/model_access.ts";
import { countInputTokens } from "../core/text/count_tokens.ts";
import { type ApiRoute, declareRoute, jsonAnswer, serveRoute } from "./openapi/declare_route.ts";

/** What a generate-content body must hold; the rest passes on as the Gemini API defines it. */
export const generateContentRequestSchema = z.looseObject({
  contents: z.array(z.looseObject({
    role: z.string().optional(),
    parts: z.array(z.looseObject({
      text: z.string().optional(),
      inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
    })).min(1, "each content needs at least one part"),
  })).min(1, "contents must not be empty"),
  generationConfig: z.looseObject({
    responseModalities: z.array(z.string()).optional(),
    candidateCount: z.int().optional(),
    imageConfig: z.looseObject({
      aspectRatio: z.string().optional(),
      imageSize: z.string().optional(),
    }).optional(),
  }).optional(),
});

/** Candidates of one text answer, as the Gemini API allows them; the bill holds for each. */
const MAX_TEXT_CANDIDATES = 8;

function checkCandidateCount(count: number | undefined): void {
  if (count === undefined || (count >= 1 && count <= MAX_TEXT_CANDIDATES)) return;
  throw invalidRequest(
    `candidateCount must be from 1 to ${MAX_TEXT_CANDIDATES} for a text model`,
    "generationConfig.candidateCount",
  );
}

/**
 * A countTokens body: `contents`, or a whole `generateContentRequest` (its system instruction and
 * tools count too), never both, as the API defines CountTokensRequest.
 */
export const countTokensRequestSchema = z.looseObject({
  contents: generateContentRequestSchema.shape.contents.optional(),
  generateContentRequest: generateContentRequestSchema.extend({
    model: z.string().optional(),
  }).optional(),
}).superRefine((body, ctx) => {
  // As the API: other fields (systemInstruction, tools, …) are refused, not silently left out.
  for (const field of Object.keys(body)) {
    if (field === "contents" || field === "generateContentRequest") continue;
    ctx.addIssue({
      code: "custom",
      path: [field],
      message: `'${field}' is not a countTokens field; send the whole request as ` +
        `generateContentRequest to count its ${field} too`,
    });
  }
  if ((body.contents === undefined) === (body.generateContentRequest === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["contents"],
      message: "send either contents or generateContentRequest, not both and not neither",
    });
  }
});

const METHODS = ["generateContent", "streamGenerateContent", "countTokens"];

async function handle(gateway: Gateway, c: Context<AppEnv>): Promise<Response> {
  // The segment is checked (UTF-8, length) by checkPathParams and decoded once by Hono.
  const target = c.req.param("model") ?? "";
  const separator = target.lastIndexOf(":");
  const model = target.slice(0, separator).replace(/^models\//, "");
  const method = target.slice(separator + 1);
  const alt = queryChoice(c.get("url"), "alt", { allowed: ["sse", "json"], fallback: "json" });
  if (!METHODS.includes(method)) {
    throw new GatewayError("not_found", 404, `Unknown method '${method}'`);
  }
  const context = c.get("context");
  context.model = model;
  // Unknown and disabled models are 404 and models of other groups 403, before the body is read.
  const catalogEntry = modelForKey(gateway.registry, { key: c.get("key"), model });
  if (catalogEntry.kind === "embedding") {
    throw new GatewayError(
      "unsupported_interface",
      400,
      `'${model}' is an embedding model; use :embedContent or :batchEmbedContents`,
      { param: "model" },
    );
  }
  if (catalogEntry.kind !== "text" && catalogEntry.kind !== "image") {
    throw new GatewayError(
      "unsupported_interface",
      400,
      `'${model}' is ${
        catalogEntry.kind === "audio" ? "an" : "a"
      } ${catalogEntry.kind} model; use POST ${interfaceOfKind(catalogEntry.kind)}`,
      { param: "model" },
    );
  }
  // snake_case field names read as their lowerCamelCase JSON names, as the Gemini API does.
  const json = normaliseProtoJsonNames(
    await readJsonBody(c.req.raw, gateway.options.maxBodyBytes),
  );
  if (method === "countTokens") return countTokens(c, { model, kind: catalogEntry.kind, json });
  const body = validate(generateContentRequestSchema, json);
  if (catalogEntry.kind === "text") {
    checkCandidateCount(body.generationConfig?.candidateCount);
    const stream = method === "streamGenerateContent";
    const framing = alt === "sse" ? "sse" : "json-array";
    return textResponse(
      await serveText(c.get("scope"), geminiInbound(body, { model, stream, framing })),
    );
  }
  const answer = await serveGenerateContentImages(c.get("scope"), {
    model,
    request: body as GenerateContentRequest,
  });
  if (method === "generateContent") return c.json(answer.body, 200, answer.headers);
  // A drawn image arrives whole: the stream is one chunk, framed as the client asked.
  context.stream = true;
  if (alt === "sse") {
    return new Response(`data: ${JSON.stringify(answer.body)}\r\n\r\n`, {
      headers: { "content-type": "text/event-stream", ...answer.headers },
    });
  }
  return c.json([answer.body], 200, answer.headers);
}

/** countTokens: a CountTokensResponse, counted upstream where the model's channel can; free. */
async function countTokens(
  c: Context<AppEnv>,
  { model, kind, json }: { model: string; kind: "text" | "image"; json: unknown },
): Promise<Response> {
  const body = validate(countTokensRequestSchema, json);
  const { model: _named, ...request } = body.generateContentRequest ?? { contents: body.contents! };
  const inbound = geminiInbound(request, { model, stream: false, framing: "sse" });
  const { count, source, ignored } = await countInputTokens(c.get("scope"), inbound, { kind });
  const headers: Record<string, string> = { "x-gateway-token-count": source };
  if (ignored.length) headers["x-gateway-ignored-fields"] = ignored.join(",");
  return c.json(
    {
      totalTokens: count.input,
      ...(count.cached !== undefined ? { cachedContentTokenCount: count.cached } : {}),
      ...(count.byModality ? { promptTokensDetails: count.byModality } : {}),
    },
    200,
    headers,
  );
}

const PATTERN = ":model{[^/]+:(?:generateContent|streamGenerateContent|countTokens)}";

/** The three operations under `/{version}/models/`, all served by one Hono route. */
function generateContentOperations(version: "v1beta" | "v1"): ApiRoute[] {
  const operation = (method: string) => ({
    method: "post" as const,
    path: `/${version}/models/{model}:${method}`,
    registeredAs: `/${version}/models/${PATTERN}`,
    tag: "gemini",
    security: "gemini" as const,
    errors: "gemini" as const,
  });
  return [
    declareRoute({
      ...operation("generateContent"),
      summary: "Generate content (Gemini): text, or images from an image model",
      body: { name: "GenerateContentRequest", schema: generateContentRequestSchema },
      answers: { "200": jsonAnswer("a GenerateContentResponse (or a stream of them)") },
    }),
    declareRoute({
      ...operation("streamGenerateContent"),
      summary: "Generate content as a stream (Gemini): a JSON array, or SSE with ?alt=sse",
      body: { name: "GenerateContentRequest", schema: generateContentRequestSchema },
      query: [{
        name: "alt",
        description: "`sse` for server-sent events",
        schema: { type: "string", enum: ["sse", "json"] },
      }],
      answers: { "200": jsonAnswer("a GenerateContentResponse (or a stream of them)") },
    }),
    declareRoute({
      ...operation("countTokens"),
      summary: "Count a request's input tokens (Gemini): upstream where it counts, else " +
        "estimated; not billed",
      body: { name: "GeminiCountTokensRequest", schema: countTokensRequestSchema },
      answers: { "200": jsonAnswer("a CountTokensResponse: {totalTokens, promptTokensDetails?}") },
    }),
  ];
}

export function generateContentRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  for (const version of ["v1beta", "v1"] as const) {
    serveRoute(
      app,
      generateContentOperations(version),
      requireKey(gateway, "gemini"),
      (c) => handle(gateway, c),
    );
  }
  return app;
}
