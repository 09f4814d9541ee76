/** Upstream messages-API streams (named events, content blocks by index) as neutral events. */

import type { NeutralEvent, NeutralUsage, StreamDecoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { handlerTable } from "../_dispatch.ts";
import { anthropicStop } from "./_stop.ts";
import { anthropicUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

type Handler = (payload: Json) => NeutralEvent[];
type DeltaHandler = (delta: Json, payload: Json) => NeutralEvent[];

/** Reads an upstream messages stream. */
export class AnthropicStreamDecoder implements StreamDecoder {
  completed = false;
  usage: NeutralUsage | undefined;
  error: string | undefined;
  #startUsage: Json = {};
  #callOfBlock = new Map<number, number>();
  readonly #handlers = handlerTable<Handler>({
    message_start: (payload) => this.#onMessageStart(payload),
    content_block_start: (payload) => this.#onBlockStart(payload),
    content_block_delta: (payload) => this.#onBlockDelta(payload),
    message_delta: (payload) => this.#onMessageDelta(payload),
    message_stop: () => this.#onMessageStop(),
    error: (payload) => this.#onError(payload),
  });
  /** `content_block_delta` by the type of its delta. */
  readonly #deltaHandlers = handlerTable<DeltaHandler>({
    text_delta: (delta) => delta.text ? [{ type: "text", text: delta.text }] : [],
    thinking_delta: (delta) => delta.thinking ? [{ type: "reasoning", text: delta.thinking }] : [],
    signature_delta: (delta) => [{ type: "reasoning_signature", signature: delta.signature }],
    input_json_delta: (delta, payload) => this.#onInputJson(delta, payload),
  });

  decode(event: string | undefined, data: string): NeutralEvent[] {
    let payload: Json;
    try {
      payload = JSON.parse(data);
    } catch {
      return [];
    }
    return this.#handlers.get(payload?.type ?? event)?.(payload) ?? [];
  }

  #onMessageStart(payload: Json): NeutralEvent[] {
    this.#startUsage = payload.message?.usage ?? {};
    return [{
      type: "start",
      id: payload.message?.id ?? "",
      model: payload.message?.model ?? "",
    }];
  }

  #onBlockStart(payload: Json): NeutralEvent[] {
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

  #onBlockDelta(payload: Json): NeutralEvent[] {
    const delta = payload.delta;
    return this.#deltaHandlers.get(delta?.type)?.(delta, payload) ?? [];
  }

  #onInputJson(delta: Json, payload: Json): NeutralEvent[] {
    const index = this.#callOfBlock.get(payload.index);
    return index === undefined || !delta.partial_json
      ? []
      : [{ type: "tool_call", index, arguments: delta.partial_json }];
  }

  #onMessageDelta(payload: Json): NeutralEvent[] {
    const events: NeutralEvent[] = [];
    if (payload.delta?.stop_reason) {
      events.push({
        type: "stop",
        reason: stopWithCalls(anthropicStop(payload.delta.stop_reason), this.#callOfBlock.size > 0),
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

  #onMessageStop(): NeutralEvent[] {
    this.completed = true;
    return [];
  }

  #onError(payload: Json): NeutralEvent[] {
    this.error = payload.error?.message ?? "upstream error";
    return [{ type: "error", message: this.error!, code: payload.error?.type }];
  }
}
