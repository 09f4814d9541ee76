/**
 * Same format in and out: the body goes upstream untouched but the model name, and each stream
 * event goes back as it came (its `event:` line and data), the model name renamed. A decoder of
 * the same format reads usage and the end on the way past.
 */

import type { UpstreamEvent } from "../upstream/upstream_events.ts";
import { textInterfaceOf } from "../formats/interfaces.ts";
import type { StreamDecoder } from "../formats/neutral.ts";
import type { GeminiFraming } from "../formats/gemini/mod.ts";
import { geminiStreamError } from "../formats/gemini/stream_error.ts";
import type { TextInbound } from "./inbound.ts";
import { outputCharsOfEvent } from "./estimate.ts";

/** The upstream body of a same-format request, as the format's interface writes it. */
export function passThroughBody(inbound: TextInbound, upstreamModel: string): string {
  return textInterfaceOf(inbound.format).passThroughBody(inbound.body, {
    upstreamModel,
    stream: inbound.stream,
  });
}

/** An SSE frame: the event's name line, if it has one, and its data. */
function sseFrame(event: string | undefined, data: string): string {
  return event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
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
  #format: string;
  #relayFrame: (event: string | undefined, data: string) => string;
  #framing: GeminiFraming;
  #rename: (data: string) => string;
  #frames = 0;

  constructor(
    { format, framing, upstreamModel, publicModel }: {
      format: string;
      framing: GeminiFraming;
      upstreamModel: string;
      publicModel: string;
    },
  ) {
    this.#format = format;
    this.#framing = framing;
    const row = textInterfaceOf(format);
    this.decoder = row.codec.streamDecoder();
    this.#relayFrame = row.relayFrame ?? sseFrame;
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
    if (this.#framing === "json-array") return (this.#frames++ === 0 ? "[" : ",\r\n") + data;
    return this.#relayFrame(event.event, data);
  }

  end(): string {
    return this.#framing === "json-array" ? (this.#frames === 0 ? "[]" : "]") : "";
  }

  /** The format's error frame, unless the upstream already sent its own. */
  error(message: string, code: string): string {
    if (this.decoder.error !== undefined) return this.end();
    // Only generate-content streams are JSON arrays: the error is Google's envelope.
    if (this.#framing === "json-array") {
      const error = JSON.stringify(geminiStreamError(message, code));
      return (this.#frames++ === 0 ? "[" : ",\r\n") + error + "]";
    }
    return textInterfaceOf(this.#format).codec.streamEncoder("", {
      includeUsage: false,
      framing: this.#framing,
      nextSequence: this.decoder.nextSequence,
    }).error(message, code);
  }
}
