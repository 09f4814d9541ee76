/** Generate-content streams (whole response objects per chunk) to and from neutral events. */

import type {
  NeutralEvent,
  NeutralUsage,
  StopReason,
  StreamDecoder,
  StreamEncoder,
} from "../neutral.ts";
import { argumentsObject, stopWithCalls } from "../neutral.ts";
import {
  encodeGeminiUsage,
  GEMINI_FINISH,
  geminiParts,
  geminiStop,
  geminiUsage,
  responseIdOf,
} from "./response_codec.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Reads an upstream generate-content stream; it is complete once a finish reason is seen. */
export class GeminiStreamDecoder implements StreamDecoder {
  completed = false;
  usage: NeutralUsage | undefined;
  error: string | undefined;
  #started = false;
  #calls = 0;

  decode(_event: string | undefined, data: string): NeutralEvent[] {
    let chunk: Json;
    try {
      chunk = JSON.parse(data);
    } catch {
      return [];
    }
    if (chunk?.error) {
      this.error = chunk.error.message ?? "upstream error";
      return [{ type: "error", message: this.error!, code: chunk.error.status }];
    }
    const events: NeutralEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      events.push({ type: "start", id: chunk.responseId ?? "", model: chunk.modelVersion ?? "" });
    }
    const candidate = chunk.candidates?.[0];
    for (const part of geminiParts(candidate?.content?.parts ?? [])) {
      switch (part.type) {
        case "text":
          if (part.text) events.push({ type: "text", text: part.text });
          break;
        case "reasoning":
          if (part.text) events.push({ type: "reasoning", text: part.text });
          if (part.signature) {
            events.push({ type: "reasoning_signature", signature: part.signature });
          }
          break;
        case "tool_call":
          events.push({
            type: "tool_call",
            index: this.#calls++,
            id: part.id,
            name: part.name,
            arguments: part.arguments,
          });
          break;
        case "image":
          events.push({ type: "image", mimeType: part.mimeType, data: part.data });
          break;
      }
    }
    const usage = geminiUsage(chunk.usageMetadata);
    if (usage) this.usage = usage;
    if (chunk.promptFeedback?.blockReason) {
      this.completed = true;
      events.push({ type: "stop", reason: "content_filter" });
    } else if (candidate?.finishReason) {
      this.completed = true;
      events.push({
        type: "stop",
        reason: stopWithCalls(geminiStop(candidate.finishReason), this.#calls > 0),
      });
    }
    if (usage && this.completed) events.push({ type: "usage", usage });
    return events;
  }
}

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
    switch (event.type) {
      case "start":
        this.#id = responseIdOf(event.id);
        return "";
      case "text": {
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
      case "reasoning":
        return this.#flushCalls() + this.#chunk([{ text: event.text, thought: true }]);
      case "image":
        return this.#flushCalls() +
          this.#chunk([{ inlineData: { mimeType: event.mimeType, data: event.data } }]);
      case "tool_call": {
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
      case "stop":
        this.#stop = event.reason;
        return "";
      case "usage":
        this.#usage = event.usage;
        return "";
      default:
        return "";
    }
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
    const error = {
      error: { code: 500, message, status: "INTERNAL", details: [{ reason: code }] },
    };
    if (this.#framing === "sse") return `data: ${JSON.stringify(error)}\r\n\r\n`;
    return (this.#frames++ === 0 ? "[" : ",\r\n") + JSON.stringify(error) + "]";
  }
}
