/**
 * A simulated OpenAI speech upstream (`POST /v1/audio/speech`), as strict as the real API: a
 * bearer key, a JSON body with no unknown field, `input` of 1 to 4,096 characters, one of
 * OpenAI's voices (or `{id}`), a known `response_format`, `speed` 0.25–4.0, no `instructions`
 * and no `stream_format: sse` for tts-1 / tts-1-hd. Errors come in OpenAI's envelope.
 *
 * It answers real audio, in chunks over time: WAV and PCM it writes itself (24 kHz mono 16-bit,
 * as OpenAI's are: a 440 Hz tone lasting `input` characters ÷ 15 per second ÷ `speed`, at least
 * 0.1 s); MP3 is tests/fixtures/media/mp3_2s.mp3, and Opus, AAC and FLAC the one-second files
 * in tests/fixtures/speech/. Faults: an error status, or a body cut off mid-way (the connection
 * ends without the body's end, as a dropped upstream does).
 */

export const SPEECH_SAMPLE_RATE = 24_000;
/** Characters the simulator speaks per second at speed 1. */
export const CHARACTERS_PER_SECOND = 15;

const VOICES = new Set([
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "fable",
  "onyx",
  "nova",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar",
]);
const FORMATS = new Set(["mp3", "opus", "aac", "flac", "wav", "pcm"]);
const FIELDS = new Set([
  "model",
  "input",
  "voice",
  "instructions",
  "response_format",
  "speed",
  "stream_format",
]);
const CONTENT_TYPES: Record<string, string> = {
  mp3: "audio/mpeg",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm",
};

const fixture = (path: string) =>
  Deno.readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const FIXED_ANSWERS: Record<string, Uint8Array> = {
  mp3: fixture("media/mp3_2s.mp3"),
  opus: fixture("speech/speech_1s.opus"),
  aac: fixture("speech/speech_1s.aac"),
  flac: fixture("speech/speech_1s.flac"),
};

export type SpeechFault =
  | { kind: "status"; status: number; message?: string; retryAfter?: string }
  /** 200 with a JSON error body, as some relays wrap an upstream's error. */
  | { kind: "json_200" }
  /** 200, then the body ends with an error after `afterBytes` bytes of audio. */
  | { kind: "cut"; afterBytes: number };

export interface SpeechRecordedRequest {
  authorization: string | null;
  body: Record<string, unknown>;
}

export interface OpenAISpeechUpstreamOptions {
  /** Upstream keys accepted; others get 401. Default ["sk-upstream-test"]. */
  keys?: string[];
  /** Bytes per chunk of the answer. Default 4,800 (0.1 s of WAV). */
  chunkBytes?: number;
  /** Milliseconds between chunks. Default 2. */
  chunkDelayMs?: number;
}

export interface OpenAISpeechUpstream extends AsyncDisposable {
  /** Base URL as the OpenAI SDK takes it (ends with /v1). */
  baseUrl: string;
  requests: SpeechRecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  faults: SpeechFault[];
  /** While set, a checked request's answer (its status too) waits for it. */
  headGate: Promise<void> | null;
  /** While set, an answer's bytes after its first chunk wait for it. */
  gate: Promise<void> | null;
  /** The bytes of each answer sent whole, in order. */
  answers: Uint8Array[];
  close(): Promise<void>;
}

/** The seconds the simulator speaks `input` for at `speed`. */
export function simulatedSpeechSeconds(input: string, speed = 1): number {
  return Math.max(0.1, [...input].length / CHARACTERS_PER_SECOND / speed);
}

/** The duration of the WAV the simulator makes of `input`: whole samples, to the microsecond. */
export function simulatedWavSeconds(input: string, speed = 1): number {
  const samples = Math.round(simulatedSpeechSeconds(input, speed) * SPEECH_SAMPLE_RATE);
  return Math.round((samples / SPEECH_SAMPLE_RATE) * 1_000_000) / 1_000_000;
}

/** 16-bit mono samples of a 440 Hz tone lasting `seconds` (rounded to whole samples). */
export function toneSamples(seconds: number): Uint8Array {
  const count = Math.round(seconds * SPEECH_SAMPLE_RATE);
  const bytes = new Uint8Array(count * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < count; i++) {
    const value = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / SPEECH_SAMPLE_RATE));
    view.setInt16(i * 2, value, true);
  }
  return bytes;
}

/** A canonical 44-byte-header WAV of `samples` (16-bit mono at 24 kHz). */
export function wavOf(samples: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(44 + samples.length);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) =>
    [...text].forEach((char, i) => view.setUint8(at + i, char.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples.length, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, SPEECH_SAMPLE_RATE, true);
  view.setUint32(28, SPEECH_SAMPLE_RATE * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, samples.length, true);
  bytes.set(samples, 44);
  return bytes;
}

function errorResponse(
  status: number,
  message: string,
  extra: { param?: string; retryAfter?: string } = {},
): Response {
  const type = status === 429
    ? "rate_limit_error"
    : status >= 500
    ? "server_error"
    : "invalid_request_error";
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (extra.retryAfter) headers["retry-after"] = extra.retryAfter;
  return new Response(
    JSON.stringify({ error: { message, type, param: extra.param ?? null, code: null } }),
    { status, headers },
  );
}

/** Why `body` is not a request the real API takes, with the field at fault. */
function problemOf(body: Record<string, unknown>): { message: string; param?: string } | null {
  const unknown = Object.keys(body).find((field) => !FIELDS.has(field));
  if (unknown) return { message: `Unrecognized request argument supplied: ${unknown}` };
  if (typeof body.model !== "string" || !body.model) {
    return { message: "you must provide a model parameter", param: "model" };
  }
  if (typeof body.input !== "string" || body.input.length === 0) {
    return { message: "input must be a non-empty string", param: "input" };
  }
  if ([...body.input].length > 4096) {
    return { message: "input is longer than 4096 characters", param: "input" };
  }
  const voice = body.voice;
  const customVoice = typeof voice === "object" && voice !== null &&
    typeof (voice as { id?: unknown }).id === "string";
  if (!customVoice && !(typeof voice === "string" && VOICES.has(voice))) {
    return { message: `Invalid value for 'voice': ${JSON.stringify(voice)}`, param: "voice" };
  }
  if (body.response_format !== undefined && !FORMATS.has(String(body.response_format))) {
    return { message: "Invalid value for 'response_format'", param: "response_format" };
  }
  if (
    body.speed !== undefined &&
    (typeof body.speed !== "number" || body.speed < 0.25 || body.speed > 4)
  ) {
    return { message: "speed must be between 0.25 and 4.0", param: "speed" };
  }
  const classic = /^tts-1/.test(body.model);
  if (classic && body.instructions !== undefined) {
    return { message: "instructions are not supported for this model", param: "instructions" };
  }
  if (body.stream_format !== undefined && !["audio", "sse"].includes(String(body.stream_format))) {
    return { message: "Invalid value for 'stream_format'", param: "stream_format" };
  }
  if (classic && body.stream_format === "sse") {
    return { message: "sse is not supported for this model", param: "stream_format" };
  }
  return null;
}

/** The answer's bytes for a checked request. */
export function speechAnswerBytes(body: Record<string, unknown>): Uint8Array {
  const format = String(body.response_format ?? "mp3");
  const fixed = FIXED_ANSWERS[format];
  if (fixed) return fixed;
  const samples = toneSamples(
    simulatedSpeechSeconds(body.input as string, (body.speed as number | undefined) ?? 1),
  );
  return format === "wav" ? wavOf(samples) : samples;
}

/** Starts the simulator on a free loopback port. */
export function startOpenAISpeechUpstream(
  options: OpenAISpeechUpstreamOptions = {},
): OpenAISpeechUpstream {
  const keys = options.keys ?? ["sk-upstream-test"];
  const chunkBytes = options.chunkBytes ?? 4800;
  const chunkDelayMs = options.chunkDelayMs ?? 2;
  const state: OpenAISpeechUpstream = {
    baseUrl: "",
    requests: [],
    faults: [],
    answers: [],
    gate: null,
    headGate: null,
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (req.method !== "POST" || url.pathname !== "/v1/audio/speech") {
      return errorResponse(404, `Invalid URL (${req.method} ${url.pathname})`);
    }
    const authorization = req.headers.get("authorization");
    let body: Record<string, unknown>;
    try {
      body = await req.json();
    } catch {
      return errorResponse(400, "We could not parse the JSON body of your request.");
    }
    state.requests.push({ authorization, body });
    if (!keys.some((key) => authorization === `Bearer ${key}`)) {
      return errorResponse(401, "Incorrect API key provided.");
    }
    const fault = state.faults.shift();
    if (fault?.kind === "status") {
      return errorResponse(fault.status, fault.message ?? `simulated ${fault.status}`, {
        retryAfter: fault.retryAfter,
      });
    }
    if (fault?.kind === "json_200") {
      return new Response(JSON.stringify({ error: { message: "upstream busy", code: 500 } }), {
        headers: { "content-type": "application/json" },
      });
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return errorResponse(400, "The body must be a JSON object.");
    }
    const problem = problemOf(body);
    if (problem) return errorResponse(400, problem.message, { param: problem.param });
    if (state.headGate) await state.headGate;
    const bytes = speechAnswerBytes(body);
    const end = fault?.kind === "cut" ? Math.min(fault.afterBytes, bytes.length) : bytes.length;
    if (!fault) state.answers.push(bytes);
    let at = 0;
    const gate = state.gate;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (at > 0) await new Promise((resolve) => setTimeout(resolve, chunkDelayMs));
        if (at > 0 && gate) await gate;
        if (at >= end) {
          if (fault?.kind === "cut") controller.error(new Error("simulated cut"));
          else controller.close();
          return;
        }
        const next = Math.min(end, at + chunkBytes);
        controller.enqueue(bytes.slice(at, next));
        at = next;
      },
    }, { highWaterMark: 0 });
    return new Response(stream, {
      headers: {
        "content-type": CONTENT_TYPES[String(body.response_format ?? "mp3")],
      },
    });
  });
  state.baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  state.close = () => server.shutdown();
  return state;
}
