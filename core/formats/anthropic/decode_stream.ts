/** Upstream messages-API streams (named events, content blocks by index) as neutral events. */

import type { NeutralEvent, NeutralUsage, StreamDecoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { anthropicStop } from "./_stop.ts";
import { anthropicUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Reads an upstream messages stream. */
export class AnthropicStreamDecoder implements StreamDecoder {
  completed = false;
  usage: NeutralUsage | undefined;
  error: string | undefined;
  #startUsage: Json = {};
  #callOfBlock = new Map<number, number>();

  decode(event: string | undefined, data: string): NeutralEvent[] {
    let payload: Json;
    try {
      payload = JSON.parse(data);
    } catch {
      return [];
    }
    switch (payload?.type ?? event) {
      case "message_start":
        this.#startUsage = payload.message?.usage ?? {};
        return [{
          type: "start",
          id: payload.message?.id ?? "",
          model: payload.message?.model ?? "",
        }];
      case "content_block_start": {
        const block = payload.content_block;
        if (block?.type === "tool_use") {
          const index = this.#callOfBlock.size;
          this.#callOfBlock.set(payload.index, index);
          const input = block.input && Object.keys(block.input).length
            ? JSON.stringify(block.input)
            : "";
          return [{ type: "tool_call", index, id: block.id, name: block.name, arguments: input }];
        }
        if (block?.type === "text" && block.text) return [{ type: "text", text: block.text }];
        if (block?.type === "thinking" && block.thinking) {
          return [{ type: "reasoning", text: block.thinking }];
        }
        return [];
      }
      case "content_block_delta": {
        const delta = payload.delta;
        switch (delta?.type) {
          case "text_delta":
            return delta.text ? [{ type: "text", text: delta.text }] : [];
          case "thinking_delta":
            return delta.thinking ? [{ type: "reasoning", text: delta.thinking }] : [];
          case "signature_delta":
            return [{ type: "reasoning_signature", signature: delta.signature }];
          case "input_json_delta": {
            const index = this.#callOfBlock.get(payload.index);
            return index === undefined || !delta.partial_json
              ? []
              : [{ type: "tool_call", index, arguments: delta.partial_json }];
          }
          default:
            return [];
        }
      }
      case "message_delta": {
        const events: NeutralEvent[] = [];
        if (payload.delta?.stop_reason) {
          events.push({
            type: "stop",
            reason: stopWithCalls(
              anthropicStop(payload.delta.stop_reason),
              this.#callOfBlock.size > 0,
            ),
          });
        }
        // message_delta's usage is cumulative; fields it leaves out come from message_start.
        const usage = anthropicUsage({ ...this.#startUsage, ...payload.usage });
        if (usage) {
          this.usage = usage;
          events.push({ type: "usage", usage });
        }
        return events;
      }
      case "message_stop":
        this.completed = true;
        return [];
      case "error":
        this.error = payload.error?.message ?? "upstream error";
        return [{ type: "error", message: this.error!, code: payload.error?.type }];
      default:
        return [];
    }
  }
}
