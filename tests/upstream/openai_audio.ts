/**
 * A simulated OpenAI Audio upstream: `POST /v1/audio/transcriptions` and `/v1/audio/translations`,
 * as strict as the real API about its multipart form: a Bearer key it knows, multipart only,
 * `file` and `model` required, a file whose name has a supported extension, known models only,
 * `response_format` one of json|text|srt|vtt|verbose_json (gpt-4o-*-transcribe: json or text),
 * `stream=true` streamed by the gpt-4o models as SSE `transcript.text.delta` /
 * `transcript.text.done` and ignored by whisper-1 (OpenAI's reference: "Streaming is not supported
 * for the whisper-1 model and will be ignored"), which answers whole; `timestamp_granularities[]` only with
 * verbose_json. The gpt-4o models report token `usage`; whisper-1 reports none.
 *
 * The transcript is derived from the request (`Transcript of N bytes` in words), so a test can
 * compare it end to end. Faults: an error status, a hang, malformed JSON, a stream cut before
 * its `transcript.text.done`, a stream that stalls after its first delta.
 */

export type AudioFault =
  | { kind: "status"; status: number; message?: string }
  | { kind: "hang" }
  | { kind: "malformed" }
  /** A stream that ends after its first delta, without `transcript.text.done`. */
  | { kind: "cut_stream" }
  /** A stream that sends its first delta, then nothing until the caller goes away. */
  | { kind: "stall_stream" };

export interface AudioRecordedRequest {
  path: string;
  authorization: string | null;
  /** The text fields in order (repeated fields repeat). */
  fields: Array<[string, string]>;
  file?: { filename: string; type: string; size: number; bytes: Uint8Array };
}

export interface OpenAIAudioUpstream extends AsyncDisposable {
  /** Base URL as the OpenAI SDK takes it (ends with /v1). */
  baseUrl: string;
  requests: AudioRecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  faults: AudioFault[];
  close(): Promise<void>;
}

/** Models this upstream knows; the gpt-4o ones stream and report token usage. */
export const TOKEN_MODELS = new Set(["gpt-4o-transcribe", "gpt-4o-mini-transcribe"]);
const MODELS = new Set(["whisper-1", ...TOKEN_MODELS]);
const EXTENSIONS = new Set([
  "flac",
  "m4a",
  "mp3",
  "mp4",
  "mpeg",
  "mpga",
  "oga",
  "ogg",
  "wav",
  "webm",
]);
const FORMATS = new Set(["json", "text", "srt", "vtt", "verbose_json"]);

/** The audio tokens the gpt-4o models report for a file: one per 1,000 bytes, at least 1. */
export function simulatedAudioTokens(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 1000));
}

/** The transcript of a file of `size` bytes (a translation says so). */
export function simulatedTranscript(action: string, size: number): string {
  return `${action === "translations" ? "Translation" : "Transcript"} of ${size} bytes of audio`;
}

/** The usage a gpt-4o model reports: audio tokens + prompt words in, transcript words out. */
export function simulatedUsage(size: number, prompt: string, text: string) {
  const audio = simulatedAudioTokens(size);
  const textTokens = prompt ? prompt.split(/\s+/).filter(Boolean).length : 0;
  const output = text.split(/\s+/).length;
  return {
    type: "tokens",
    input_tokens: audio + textTokens,
    input_token_details: { text_tokens: textTokens, audio_tokens: audio },
    output_tokens: output,
    total_tokens: audio + textTokens + output,
  };
}

function error(status: number, message: string, param: string | null = null, code?: string) {
  return Response.json({
    error: { message, type: "invalid_request_error", param, code: code ?? null },
  }, { status });
}

function timestamp(seconds: number, separator: string): string {
  const ms = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${
    pad(Math.floor(ms / 1000) % 60)
  }${separator}${pad(ms % 1000, 3)}`;
}

export function startOpenAIAudioUpstream(
  options: { keys?: string[]; delayMs?: number } = {},
): OpenAIAudioUpstream {
  const keys = options.keys ?? ["sk-upstream-test"];
  const requests: AudioRecordedRequest[] = [];
  const faults: AudioFault[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const action = url.pathname.match(/^\/v1\/audio\/(transcriptions|translations)$/)?.[1];
    if (req.method !== "POST" || !action) return error(404, "Not found");
    const authorization = req.headers.get("authorization");
    if (!keys.some((key) => authorization === `Bearer ${key}`)) {
      return error(401, "Incorrect API key provided", null, "invalid_api_key");
    }
    if (!/^multipart\/form-data/i.test(req.headers.get("content-type") ?? "")) {
      return error(400, "Invalid Content-Type header, expected multipart/form-data");
    }
    let form: FormData;
    try {
      form = await req.formData();
    } catch {
      return error(400, "Could not parse multipart form");
    }
    const record: AudioRecordedRequest = { path: url.pathname, authorization, fields: [] };
    for (const [name, value] of form.entries()) {
      if (typeof value === "string") record.fields.push([name, value]);
      else if (name === "file") {
        const bytes = new Uint8Array(await value.arrayBuffer());
        record.file = { filename: value.name, type: value.type, size: bytes.length, bytes };
      }
    }
    requests.push(record);
    const fault = faults.shift();
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    if (fault?.kind === "status") {
      return error(fault.status, fault.message ?? `simulated ${fault.status}`, null, "simulated");
    }
    if (fault?.kind === "hang") {
      await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
      return error(499, "gone");
    }
    const field = (name: string) => record.fields.find(([key]) => key === name)?.[1];
    const all = (name: string) => record.fields.filter(([key]) => key === name).map(([, v]) => v);
    const model = field("model");
    if (!record.file) return error(400, "Missing required parameter: 'file'.", "file");
    if (!model) return error(400, "Missing required parameter: 'model'.", "model");
    if (!MODELS.has(model)) {
      return error(404, `The model '${model}' does not exist`, "model", "model_not_found");
    }
    const extension = record.file.filename.match(/\.([a-z0-9]+)$/i)?.[1]?.toLowerCase();
    if (!extension || !EXTENSIONS.has(extension) || record.file.size === 0) {
      return error(
        400,
        `Invalid file format. Supported formats: ${[...EXTENSIONS].join(", ")}`,
        "file",
      );
    }
    const format = field("response_format") ?? "json";
    if (!FORMATS.has(format)) {
      return error(
        400,
        `'${format}' is not one of ['json', 'text', 'srt', 'verbose_json', 'vtt'] - 'response_format'`,
        "response_format",
      );
    }
    const tokenModel = TOKEN_MODELS.has(model);
    if (tokenModel && format !== "json" && format !== "text") {
      return error(
        400,
        `response_format '${format}' is not compatible with model '${model}'. Use 'json' or 'text'.`,
        "response_format",
        "unsupported_value",
      );
    }
    const granularities = all("timestamp_granularities[]");
    if (granularities.length && format !== "verbose_json") {
      return error(
        400,
        "timestamp_granularities requires response_format=verbose_json",
        "timestamp_granularities",
      );
    }
    const stream = field("stream") === "true" && tokenModel && action === "transcriptions";
    const text = simulatedTranscript(action, record.file.size);
    const usage = simulatedUsage(record.file.size, field("prompt") ?? "", text);
    if (fault?.kind === "malformed") {
      return new Response('{"text": "cut', { headers: { "content-type": "application/json" } });
    }
    if (stream) {
      const words = text.split(" ");
      const events = words.map((word, i) => ({
        type: "transcript.text.delta",
        delta: i === 0 ? word : ` ${word}`,
      }));
      const frames = fault?.kind === "cut_stream"
        ? [events[0]]
        : [...events, { type: "transcript.text.done", text, usage }];
      const body = frames.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("");
      if (fault?.kind === "stall_stream") {
        const first = `data: ${JSON.stringify(events[0])}\n\n`;
        const stalled = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(first));
            req.signal.addEventListener("abort", () => controller.close(), { once: true });
          },
        });
        return new Response(stalled, { headers: { "content-type": "text/event-stream" } });
      }
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    const duration = 2.5;
    if (format === "text") {
      return new Response(`${text}\n`, {
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    if (format === "srt") {
      return new Response(`1\n${timestamp(0, ",")} --> ${timestamp(duration, ",")}\n${text}\n\n`, {
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    if (format === "vtt") {
      return new Response(
        `WEBVTT\n\n${timestamp(0, ".")} --> ${timestamp(duration, ".")}\n${text}\n\n`,
        { headers: { "content-type": "text/plain; charset=utf-8" } },
      );
    }
    if (format === "verbose_json") {
      return Response.json({
        task: action === "translations" ? "translate" : "transcribe",
        language: action === "translations" ? "english" : field("language") ?? "english",
        duration,
        text,
        segments: [{ id: 0, seek: 0, start: 0, end: duration, text, tokens: [1, 2, 3] }],
        ...(granularities.includes("word")
          ? {
            words: text.split(" ").map((word, i) => ({ word, start: i * 0.3, end: i * 0.3 + 0.3 })),
          }
          : {}),
      });
    }
    return Response.json(tokenModel ? { text, usage } : { text });
  });
  const close = async () => {
    await server.shutdown();
  };
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    faults,
    close,
    [Symbol.asyncDispose]: close,
  };
}
