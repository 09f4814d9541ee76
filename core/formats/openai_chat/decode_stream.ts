/** Upstream chat-completions streams (`data:` chunks, then `[DONE]`) as neutral events. */

import type { NeutralEvent, NeutralUsage, StreamDecoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { chatStopReason } from "./_stop.ts";
import { chatUsage } from "./_usage.ts";
import {
  openAIChatChunkSchema,
  type OpenAIChatDelta,
  openAIChatErrorSchema,
  type OpenAIChatToolCall,
} from "./answer_schemas.ts";
import type { z } from "zod";
import { readLenient } from "../../util/lenient_schema.ts";

type OpenAIChatChunk = z.output<typeof openAIChatChunkSchema>;

/** Reads an upstream chat stream (`data:` chunks, then `[DONE]`). */
export class ChatStreamDecoder implements StreamDecoder {
  completed = false;
  usage: NeutralUsage | undefined;
  error: string | undefined;
  #started = false;
  #sawFinish = false;
  #calls = new Set<number>();

  decode(_event: string | undefined, data: string): NeutralEvent[] {
    if (data === "[DONE]") {
      this.completed = true;
      return [];
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [];
    }
    const chunk = readLenient(openAIChatChunkSchema, json);
    return chunk.error ? this.#onError(chunk.error) : this.#onChunk(chunk);
  }

  #onError(json: unknown): NeutralEvent[] {
    const error = readLenient(openAIChatErrorSchema, json);
    this.error = error.message ?? "upstream error";
    return [{ type: "error", message: this.error, code: error.code }];
  }

  #onChunk(chunk: OpenAIChatChunk): NeutralEvent[] {
    const events: NeutralEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      events.push({ type: "start", id: chunk.id ?? "", model: chunk.model ?? "" });
    }
    const choice = chunk.choices[0];
    const delta = choice?.delta;
    if (delta) this.#onDelta(delta, events);
    if (choice?.finish_reason) this.#onFinish(choice.finish_reason, events);
    const usage = chatUsage(chunk.usage);
    if (usage) {
      this.usage = usage;
      events.push({ type: "usage", usage });
    }
    // Some compatible upstreams end without [DONE]; a finish reason plus usage is complete.
    if (this.#sawFinish && usage) this.completed = true;
    return events;
  }

  #onDelta(delta: OpenAIChatDelta, events: NeutralEvent[]): void {
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning) {
      events.push({ type: "reasoning", text: reasoning });
    }
    if (typeof delta.content === "string" && delta.content) {
      events.push({ type: "text", text: delta.content });
    }
    for (const call of delta.tool_calls) events.push(this.#toolCall(call));
  }

  #toolCall(call: OpenAIChatToolCall): NeutralEvent {
    const index = call.index ?? 0;
    const first = !this.#calls.has(index);
    this.#calls.add(index);
    return {
      type: "tool_call",
      index,
      ...(first ? { id: call.id ?? `call_${index}`, name: call.function?.name ?? "" } : {}),
      arguments: call.function?.arguments ?? "",
    };
  }

  #onFinish(reason: string, events: NeutralEvent[]): void {
    this.#sawFinish = true;
    events.push({
      type: "stop",
      reason: stopWithCalls(chatStopReason(reason), this.#calls.size > 0),
    });
  }
}
