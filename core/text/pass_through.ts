/**
 * Same format in and out: the body goes upstream untouched but the model name, and each stream
 * event goes back as it came (its `event:` line and data), the model name renamed. A decoder of
 * the same format reads usage and the end on the way past.
 */

import type { UpstreamEvent } from "../upstream/upstream_events.ts";
import { CODECS } from "../formats/codecs.ts";
import type { StreamDecoder, TextFormat } from "../formats/neutral.ts";
import type { GeminiFraming } from "../formats/gemini/mod.ts";
import { geminiErrorBody } from "../formats/gemini/error_body.ts";
import type { TextInbound } from "./inbound.ts";
import { outputCharsOfEvent } from "./estimate.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The upstream body of a same-format request: the client's body with the upstream model. */
export function passThroughBody(inbound: TextInbound, upstreamModel: string): string {
  const body: Json = inbound.body;
  switch (inbound.format) {
    case "gemini":
      return JSON.stringify(body);
    case "openai-chat":
      return JSON.stringify({
        ...body,
        model: upstreamModel,
        // The gateway always asks for usage, to bill from it (the relay hides it if unasked).
        ...(inbound.stream
          ? { stream_options: { ...body.stream_options, include_usage: true } }
          : {}),
      });
    default:
      return JSON.stringify({ ...body, model: upstreamModel });
  }
}

function renamer(upstreamModel: string, publicModel: string): (data: string) => string {
  if (upstreamModel === publicModel) return (data) => data;
  const pattern = new RegExp(
    `("(?:model|modelVersion)"\\s*:\\s*)${
      JSON.stringify(upstreamModel).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    }`,
  );
  const replacement = `$1${JSON.stringify(publicModel)}`;
  return (data) => data.replace(pattern, replacement);
}

/** Relays one same-format stream (not chat, which has its own relay for usage hiding). */
export class PassThroughStream {
  readonly decoder: StreamDecoder;
  #chars = 0;
  #format: TextFormat;
  #framing: GeminiFraming;
  #rename: (data: string) => string;
  #frames = 0;

  constructor(
    { format, framing, upstreamModel, publicModel }: {
      format: TextFormat;
      framing: GeminiFraming;
      upstreamModel: string;
      publicModel: string;
    },
  ) {
    this.#format = format;
    this.#framing = framing;
    this.decoder = CODECS[format].streamDecoder();
    this.#rename = renamer(upstreamModel, publicModel);
  }

  /** Output characters relayed, every answer's (Gemini candidates beyond the first too). */
  get outputChars(): number {
    return this.#chars + (this.decoder.otherAnswersChars ?? 0);
  }

  frame(event: UpstreamEvent): string | null {
    for (const neutral of this.decoder.decode(event.event, event.data)) {
      this.#chars += outputCharsOfEvent(neutral);
    }
    const data = this.#rename(event.data);
    if (this.#format === "gemini") {
      if (this.#framing === "sse") return `data: ${data}\r\n\r\n`;
      return (this.#frames++ === 0 ? "[" : ",\r\n") + data;
    }
    return event.event ? `event: ${event.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
  }

  end(): string {
    return this.#format === "gemini" && this.#framing === "json-array"
      ? (this.#frames === 0 ? "[]" : "]")
      : "";
  }

  /** The format's error frame, unless the upstream already sent its own. */
  error(message: string, code: string): string {
    if (this.decoder.error !== undefined) return this.end();
    if (this.#format === "gemini" && this.#framing === "json-array") {
      const error = JSON.stringify(geminiErrorBody({ httpStatus: 500, message, code }).body);
      return (this.#frames++ === 0 ? "[" : ",\r\n") + error + "]";
    }
    return CODECS[this.#format].streamEncoder("", {
      includeUsage: false,
      framing: this.#framing,
      nextSequence: this.decoder.nextSequence,
    }).error(message, code);
  }
}
