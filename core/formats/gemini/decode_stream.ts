/** Upstream generate-content streams (whole response objects per chunk) as neutral events. */

import type { NeutralEvent, NeutralPart, NeutralUsage, StreamDecoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { geminiParts } from "./_parts.ts";
import { geminiStop } from "./_stop.ts";
import { geminiUsage } from "./_usage.ts";
import {
  type GeminiCandidate,
  geminiErrorSchema,
  type GeminiResponse,
  geminiResponseSchema,
} from "./answer_schemas.ts";
import { readLenient } from "../../util/lenient_schema.ts";

/** Reads an upstream generate-content stream; it is complete once a finish reason is seen. */
export class GeminiStreamDecoder implements StreamDecoder {
  completed = false;
  usage: NeutralUsage | undefined;
  error: string | undefined;
  otherAnswersChars = 0;
  #started = false;
  #calls = 0;

  decode(_event: string | undefined, data: string): NeutralEvent[] {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [];
    }
    const chunk = readLenient(geminiResponseSchema, json);
    return chunk.error ? this.#onError(chunk.error) : this.#onChunk(chunk);
  }

  #onError(json: unknown): NeutralEvent[] {
    const error = readLenient(geminiErrorSchema, json);
    this.error = error.message ?? "upstream error";
    return [{ type: "error", message: this.error!, code: error.status }];
  }

  #onChunk(chunk: GeminiResponse): NeutralEvent[] {
    const events: NeutralEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      events.push({ type: "start", id: chunk.responseId ?? "", model: chunk.modelVersion ?? "" });
    }
    const candidate = chunk.candidates[0];
    for (const part of geminiParts(candidate?.content?.parts ?? [])) this.#onPart(part, events);
    for (const other of chunk.candidates.slice(1)) this.#countOther(other);
    const usage = geminiUsage(chunk.usageMetadata);
    if (usage) this.usage = usage;
    this.#onFinish(chunk, candidate, events);
    if (usage && this.completed) events.push({ type: "usage", usage });
    return events;
  }

  #onPart(part: NeutralPart, events: NeutralEvent[]): void {
    switch (part.type) {
      case "text":
        if (part.text) events.push({ type: "text", text: part.text });
        break;
      case "reasoning":
        if (part.text) events.push({ type: "reasoning", text: part.text });
        // A signature without text belongs to the part after it, not to the thoughts before.
        if (part.signature) {
          events.push({
            type: "reasoning_signature",
            signature: part.signature,
            ...(part.text ? {} : { standalone: true }),
          });
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

  /**
   * Only the first candidate becomes events (`candidateCount` needs a gemini client); the others
   * are counted as an estimate counts (core/text/estimate.ts).
   */
  #countOther(candidate: GeminiCandidate): void {
    for (const part of geminiParts(candidate?.content?.parts ?? [])) {
      if (part.type === "text" || part.type === "reasoning") {
        this.otherAnswersChars += part.text.length;
      } else if (part.type === "tool_call") this.otherAnswersChars += part.arguments.length;
    }
  }

  /** A blocked prompt or a finish reason ends the stream. */
  #onFinish(
    chunk: GeminiResponse,
    candidate: GeminiCandidate | undefined,
    events: NeutralEvent[],
  ): void {
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
  }
}
