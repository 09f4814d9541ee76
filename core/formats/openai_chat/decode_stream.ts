/** Upstream chat-completions streams (`data:` chunks, then `[DONE]`) as neutral events. */

import type { NeutralEvent, NeutralUsage, StreamDecoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { chatStopReason } from "./_stop.ts";
import { chatUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

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
    let chunk: Json;
    try {
      chunk = JSON.parse(data);
    } catch {
      return [];
    }
    const events: NeutralEvent[] = [];
    if (chunk?.error) {
      this.error = chunk.error.message ?? "upstream error";
      return [{ type: "error", message: this.error!, code: chunk.error.code ?? undefined }];
    }
    if (!this.#started) {
      this.#started = true;
      events.push({ type: "start", id: chunk.id ?? "", model: chunk.model ?? "" });
    }
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    if (delta) {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === "string" && reasoning) {
        events.push({ type: "reasoning", text: reasoning });
      }
      if (typeof delta.content === "string" && delta.content) {
        events.push({ type: "text", text: delta.content });
      }
      for (const call of delta.tool_calls ?? []) {
        const index = call.index ?? 0;
        const first = !this.#calls.has(index);
        this.#calls.add(index);
        events.push({
          type: "tool_call",
          index,
          ...(first ? { id: call.id ?? `call_${index}`, name: call.function?.name ?? "" } : {}),
          arguments: call.function?.arguments ?? "",
        });
      }
    }
    if (choice?.finish_reason) {
      this.#sawFinish = true;
      events.push({
        type: "stop",
        reason: stopWithCalls(chatStopReason(choice.finish_reason), this.#calls.size > 0),
      });
    }
    const usage = chatUsage(chunk.usage);
    if (usage) {
      this.usage = usage;
      events.push({ type: "usage", usage });
    }
    // Some compatible upstreams end without [DONE]; a finish reason plus usage is complete.
    if (this.#sawFinish && usage) this.completed = true;
    return events;
  }
}
