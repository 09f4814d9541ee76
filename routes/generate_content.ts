/**
 * The generate-content interface: POST /v1beta/models/{model}:generateContent and
 * :streamGenerateContent, also under /v1/models/ for newer SDKs. Text models go to any text
 * channel (converted unless the channel is `gemini`); image models to the image channels.
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
import { geminiInbound } from "../core/text/inbound.ts";
import { serveText } from "../core/text/serve_text.ts";
import { textResponse } from "./text_answer.ts";
import { queryChoice } from "./params.ts";

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

async function handle(gateway: Gateway, c: Context<AppEnv>): Promise<Response> {
  // The segment is checked (UTF-8, length) by checkPathParams and decoded once by Hono.
  const target = c.req.param("model") ?? "";
  const separator = target.lastIndexOf(":");
  const model = target.slice(0, separator).replace(/^models\//, "");
  const method = target.slice(separator + 1);
  const alt = queryChoice(c.get("url"), "alt", { allowed: ["sse", "json"], fallback: "json" });
  if (method !== "generateContent" && method !== "streamGenerateContent") {
    throw new GatewayError("not_found", 404, `Unknown method '${method}'`);
  }
  const context = c.get("context");
  context.model = model;
  const catalogEntry = gateway.registry.model(model);
  if (catalogEntry?.kind === "video") {
    throw new GatewayError(
      "unsupported_interface",
      400,
      `'${model}' is a video model; use POST /v1/video/generations`,
      { param: "model" },
    );
  }
  const body = validate(
    generateContentRequestSchema,
    await readJsonBody(c.req.raw, gateway.options.maxBodyBytes),
  );
  if (catalogEntry?.kind === "text") {
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

export function generateContentRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const pattern = ":model{[^/]+:(?:generateContent|streamGenerateContent)}";
  app.post(`/v1beta/models/${pattern}`, requireKey(gateway, "gemini"), (c) => handle(gateway, c));
  app.post(`/v1/models/${pattern}`, requireKey(gateway, "gemini"), (c) => handle(gateway, c));
  return app;
}
