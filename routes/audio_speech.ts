/** The speech interface: POST /v1/audio/speech (OpenAI's text to speech), answered with audio. */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { serveSpeech } from "../core/audio/speech_service.ts";
import { KNOWN_SPEECH_FIELDS, notAnObject, speechRequestSchema } from "../core/jobs/speech_job.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { readJsonBody, validate } from "./validation.ts";
import { declareRoute, serveRoute } from "./openapi/declare_route.ts";

const speech = declareRoute({
  method: "post",
  path: "/v1/audio/speech",
  tag: "audio",
  summary: "Text to speech (OpenAI Audio): the audio bytes, streamed as the upstream makes them",
  security: "openai",
  errors: "openai",
  body: { name: "SpeechRequest", schema: speechRequestSchema },
  answers: {
    "200": {
      description: "The audio in `response_format`: audio/mpeg (mp3, the default), audio/opus, " +
        "audio/aac, audio/flac, audio/wav or audio/pcm",
      contentType: "audio/*",
    },
  },
});

/** The speech route. */
export function audioSpeechRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, speech, requireKey(gateway, "openai"), async (c) => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw notAnObject();
    const job = validate(speechRequestSchema, body);
    const ignoredFields = Object.keys(body).filter((field) => !KNOWN_SPEECH_FIELDS.has(field));
    return await serveSpeech(c.get("scope"), { job, ignoredFields });
  });
  return app;
}
