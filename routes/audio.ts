/**
 * The audio transcription interfaces: POST /v1/audio/transcriptions and /v1/audio/translations
 * (multipart, OpenAI's shape). The file's format is judged from its bytes; the answer is the
 * upstream's, as JSON or text/plain (text, srt, vtt), or SSE with `stream=true`.
 */

import { Hono } from "hono";
import type { Context } from "hono";
import type { z } from "zod";
import { GatewayError, invalidRequest } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { checkedAudioFile, MAX_AUDIO_BYTES } from "../core/audio/audio_file.ts";
import {
  LIST_FIELDS,
  transcriptionFieldsSchema,
  translationFieldsSchema,
} from "../core/audio/request_schema.ts";
import type { TranscriptionAction, TranscriptionJob } from "../core/jobs/transcription_job.ts";
import { serveTranscription } from "../core/audio/transcription_service.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { validate } from "./validation.ts";
import { type MultipartFile, readMultipartEntries } from "./multipart_body.ts";
import { declareRoute, serveRoute } from "./openapi/declare_route.ts";

const fileTooLarge = () =>
  new GatewayError(
    "file_too_large",
    413,
    `file is larger than 25 MB (${MAX_AUDIO_BYTES.toLocaleString("en")} bytes), the largest ` +
      "audio accepted; split it or compress it",
    { param: "file" },
  );

/** The form's parts, or a 4xx: multipart only, one file of at most 25 MB. */
async function readForm(c: Context<AppEnv>): Promise<Array<[string, string | MultipartFile]>> {
  if (!/^multipart\/form-data/i.test(c.req.header("content-type") ?? "")) {
    throw invalidRequest(
      "An audio request is sent as multipart/form-data (fields file, model, …)",
      undefined,
      "invalid_content_type",
    );
  }
  return await readMultipartEntries(c.req.raw, {
    maxFileBytes: MAX_AUDIO_BYTES,
    maxTotalBytes: MAX_AUDIO_BYTES + 1024 * 1024,
    fileTooLarge,
  });
}

/** The job of a request's form: fields checked against `schema`, the unknown ones named. */
async function jobOf(
  action: TranscriptionAction,
  form: Array<[string, string | MultipartFile]>,
  schema: typeof transcriptionFieldsSchema | typeof translationFieldsSchema,
): Promise<{ job: TranscriptionJob; ignored: string[] }> {
  const known = new Set(Object.keys(schema.shape));
  const fields: Record<string, string | string[]> = {};
  const passed: Array<[string, string]> = [];
  const ignored: string[] = [];
  let file: MultipartFile | undefined;
  for (const [name, value] of form) {
    if (name === "file") {
      if (typeof value === "string") {
        throw invalidRequest("file must be a file upload, not a text field", "file");
      }
      if (file) throw invalidRequest("Send one file", "file");
      file = value;
      continue;
    }
    const listName = LIST_FIELDS.has(`${name}[]`) ? `${name}[]` : name;
    if (!known.has(listName)) {
      if (!ignored.includes(name)) ignored.push(name);
      continue;
    }
    if (typeof value !== "string") {
      throw invalidRequest(`${name} must be a text field, not a file`, name);
    }
    if (LIST_FIELDS.has(listName)) {
      fields[listName] = [...(fields[listName] as string[] | undefined) ?? [], value];
    } else if (listName in fields) {
      throw invalidRequest(`Send ${name} once`, name);
    } else {
      fields[listName] = value;
    }
    if (listName !== "model") passed.push([listName, value]);
  }
  const checked = validate(schema as z.ZodType, fields) as z.infer<
    typeof transcriptionFieldsSchema
  >;
  if (!file) throw invalidRequest("file is required: send the audio as 'file'", "file");
  const stream = checked.stream === "true";
  return {
    job: {
      action,
      model: checked.model,
      file: await checkedAudioFile(file.bytes, file.filename),
      fields: passed,
      format: checked.response_format,
      stream,
    },
    ignored,
  };
}

const transcriptionAnswers = {
  "200": {
    description: "`{text, usage?}` (json), `{task, language, duration, text, segments, words?}` " +
      "(verbose_json), text/plain (text, srt, vtt), or SSE `transcript.text.delta` / " +
      "`transcript.text.done` events with `stream=true`",
  },
};

const transcriptions = declareRoute({
  method: "post",
  path: "/v1/audio/transcriptions",
  tag: "audio",
  summary: "Transcribe audio (OpenAI Audio): the file and fields as multipart; `stream=true` " +
    "streams where the model does",
  security: "openai",
  errors: "openai",
  body: {
    name: "TranscriptionFields",
    schema: transcriptionFieldsSchema,
    files: {
      file: "the audio, at most 25 MB: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav or webm",
    },
  },
  answers: transcriptionAnswers,
});

const translations = declareRoute({
  method: "post",
  path: "/v1/audio/translations",
  tag: "audio",
  summary: "Translate audio into English text (OpenAI Audio), as multipart",
  security: "openai",
  errors: "openai",
  body: {
    name: "TranslationFields",
    schema: translationFieldsSchema,
    files: {
      file: "the audio, at most 25 MB: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav or webm",
    },
  },
  answers: {
    "200": { description: "`{text}` (json), verbose_json, or text/plain (text, srt, vtt)" },
  },
});

/** The audio transcription and translation routes. */
export function audioRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const serve = (action: TranscriptionAction) => async (c: Context<AppEnv>) => {
    const form = await readForm(c);
    const schema = action === "transcriptions"
      ? transcriptionFieldsSchema
      : translationFieldsSchema;
    const { job, ignored } = await jobOf(action, form, schema);
    c.get("context").model = job.model;
    const answer = await serveTranscription(c.get("scope"), { job, ignoredFields: ignored });
    return new Response(answer.body, { status: 200, headers: answer.headers });
  };
  serveRoute(app, transcriptions, requireKey(gateway, "openai"), serve("transcriptions"));
  serveRoute(app, translations, requireKey(gateway, "openai"), serve("translations"));
  return app;
}
