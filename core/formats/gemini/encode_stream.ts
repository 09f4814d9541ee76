/** Neutral events as a generate-content stream (whole response objects per chunk). */

import type { NeutralEvent, NeutralUsage, StopReason, StreamEncoder } from "../neutral.ts";
import { argumentsObject, stopWithCalls } from "../neutral.ts";
import { handlersByType } from "../_dispatch.ts";
import { responseIdOf } from "./_ids.ts";
import { GEMINI_FINISH } from "./_stop.ts";
import { encodeGeminiUsage } from "./_usage.ts";
import { geminiStreamError } from "./stream_error.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

type Event<T extends NeutralEvent["type"]> = Extract<NeutralEvent, { type: T }>;

/** How a stream of response objects is framed: SSE with `alt=sse`, else one JSON array. */
export type GeminiFraming = "sse" | "json-array";

/** Writes a generate-content stream for a client. Tool calls are sent whole, as Gemini does. */
export class GeminiStreamEncoder implements StreamEncoder {
  #model: string;
  #framing: GeminiFraming;
  #id = "";
  #frames = 0;
  #calls = new Map<number, { id: string; name: string; arguments: string }>();
  #stop: StopReason | undefined;
  #usage: NeutralUsage | undefined;
  #madeCalls = false;
  readonly #handlers = handlersByType<NeutralEvent, string>({
    start: (event) => {
      this.#id = responseIdOf(event.id);
      return "";
    },
    text: (event) => this.#onText(event),
    reasoning: (event) => this.#flushCalls() + this.#chunk([{ text: event.text, thought: true }]),
    reasoning_signature: (event) =>
      this.#flushCalls() +
      this.#chunk([{ text: "", thought: true, thoughtSignature: event.signature }]),
    image: (event) =>
      this.#flushCalls() +
      this.#chunk([{ inlineData: { mimeType: event.mimeType, data: event.data } }]),
    tool_call: (event) => this.#onToolCall(event),
    stop: (event) => {
      this.#stop = event.reason;
      return "";
    },
    usage: (event) => {
      this.#usage = event.usage;
      return "";
    },
  });

  constructor(model: string, framing: GeminiFraming) {
    this.#model = model;
    this.#framing = framing;
  }

  #frame(object: Json): string {
    const json = JSON.stringify(object);
    if (this.#framing === "sse") return `data: ${json}\r\n\r\n`;
    return (this.#frames++ === 0 ? "[" : ",\r\n") + json;
  }

  #chunk(parts: Json[], extra: Json = {}): string {
    return this.#frame({
      candidates: [{ content: { role: "model", parts }, index: 0, ...extra.candidate }],
      ...extra.top,
      modelVersion: this.#model,
      responseId: this.#id || (this.#id = responseIdOf("")),
    });
  }

  #flushCalls(): string {
    if (!this.#calls.size) return "";
    const parts = [...this.#calls.values()].map((call) => ({
      functionCall: { id: call.id, name: call.name, args: argumentsObject(call.arguments) },
    }));
    this.#calls.clear();
    return this.#chunk(parts);
  }

  encode(event: NeutralEvent): string {
    return this.#handlers.get(event.type)?.(event) ?? "";
  }

  #onText(event: Event<"text">): string {
    const calls = this.#flushCalls();
    // The hottest frame of a stream, written directly rather than through an object.
    const json = `{"candidates":[{"content":{"role":"model","parts":[{"text":${
      JSON.stringify(event.text)
    }}]},"index":0}],"modelVersion":${JSON.stringify(this.#model)},"responseId":"${
      this.#id || (this.#id = responseIdOf(""))
    }"}`;
    if (this.#framing === "sse") return calls + `data: ${json}\r\n\r\n`;
    return calls + (this.#frames++ === 0 ? "[" : ",\r\n") + json;
  }

  /** Tool calls are held until whole: arguments gather by call index. */
  #onToolCall(event: Event<"tool_call">): string {
    this.#madeCalls = true;
    const call = this.#calls.get(event.index);
    if (call) call.arguments += event.arguments;
    else {
      this.#calls.set(event.index, {
        id: event.id ?? `call_${event.index}`,
        name: event.name ?? "",
        arguments: event.arguments,
      });
    }
    return "";
  }

  end(): string {
    const stop = stopWithCalls(this.#stop ?? "stop", this.#madeCalls);
    const out = this.#flushCalls() + this.#chunk([{ text: "" }], {
      candidate: { finishReason: GEMINI_FINISH[stop] },
      top: this.#usage ? { usageMetadata: encodeGeminiUsage(this.#usage) } : {},
    });
    return this.#framing === "sse" ? out : out + "]";
  }

  error(message: string, code: string): string {
    const error = geminiStreamError(message, code);
    if (this.#framing === "sse") return `data: ${JSON.stringify(error)}\r\n\r\n`;
    return (this.#frames++ === 0 ? "[" : ",\r\n") + JSON.stringify(error) + "]";
  }
}
