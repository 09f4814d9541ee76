/** Upstream messages-API streams (named events, content blocks by index) as neutral events. */

import type { NeutralEvent, NeutralUsage, StreamDecoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { anthropicStop } from "./_stop.ts";
import { anthropicUsage } from "./_usage.ts";
import { signatureFrom } from "../signature.ts";
import { type AnthropicStreamEvent, anthropicStreamEventSchema } from "./answer_schemas.ts";
import { readLenient } from "../../util/lenient_schema.ts";

/** Reads an upstream messages stream. */
export class AnthropicStreamDecoder implements StreamDecoder {
  completed = false;
  usage: NeutralUsage | undefined;
  error: string | undefined;
  #startUsage: unknown = {};
  #callOfBlock = new Map<number, number>();

  decode(event: string | undefined, data: string): NeutralEvent[] {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [];
    }
    const payload = readLenient(anthropicStreamEventSchema, json);
    // A switch rather than a Map: type names parsed from the upstream are fresh strings, and
    // comparing one costs less than hashing it (bench/stream_cpu.ts).
    switch (payload.type ?? event) {
      case "message_start":
        return this.#onMessageStart(payload);
      case "content_block_start":
        return this.#onBlockStart(payload);
      case "content_block_delta":
        return this.#onBlockDelta(payload);
      case "message_delta":
        return this.#onMessageDelta(payload);
      case "message_stop":
        return this.#onMessageStop();
      case "error":
        return this.#onError(payload);
      default:
        return [];
    }
  }

  #onMessageStart(payload: AnthropicStreamEvent): NeutralEvent[] {
    this.#startUsage = payload.message?.usage ?? {};
    return [{
      type: "start",
      id: payload.message?.id ?? "",
      model: payload.message?.model ?? "",
    }];
  }

  #onBlockStart(payload: AnthropicStreamEvent): NeutralEvent[] {
    const block = payload.content_block;
    if (block?.type === "tool_use") {
      const index = this.#callOfBlock.size;
      this.#callOfBlock.set(payload.index!, index);
      const input = block.input && Object.keys(block.input).length
        ? JSON.stringify(block.input)
        : "";
      return [{ type: "tool_call", index, id: block.id!, name: block.name!, arguments: input }];
    }
    if (block?.type === "text" && block.text) return [{ type: "text", text: block.text }];
    if (block?.type === "thinking" && block.thinking) {
      return [{ type: "reasoning", text: block.thinking }];
    }
    if (block?.type === "redacted_thinking" && block.data) {
      const signature = signatureFrom(block.data, { format: "anthropic", kind: "redacted" })!;
      return [{ type: "reasoning_signature", signature, standalone: true }];
    }
    return [];
  }

  #onBlockDelta(payload: AnthropicStreamEvent): NeutralEvent[] {
    const delta = payload.delta;
    switch (delta?.type) {
      case "text_delta":
        return delta.text ? [{ type: "text", text: delta.text }] : [];
      case "thinking_delta":
        return delta.thinking ? [{ type: "reasoning", text: delta.thinking }] : [];
      case "signature_delta": {
        const signature = signatureFrom(delta.signature ?? "", { format: "anthropic" });
        return signature ? [{ type: "reasoning_signature", signature }] : [];
      }
      case "input_json_delta":
        return this.#onInputJson(delta, payload);
      default:
        return [];
    }
  }

  #onInputJson(
    delta: NonNullable<AnthropicStreamEvent["delta"]>,
    payload: AnthropicStreamEvent,
  ): NeutralEvent[] {
    const index = this.#callOfBlock.get(payload.index!);
    return index === undefined || !delta.partial_json
      ? []
      : [{ type: "tool_call", index, arguments: delta.partial_json }];
  }

  #onMessageDelta(payload: AnthropicStreamEvent): NeutralEvent[] {
    const events: NeutralEvent[] = [];
    if (payload.delta?.stop_reason) {
      events.push({
        type: "stop",
        reason: stopWithCalls(anthropicStop(payload.delta.stop_reason), this.#callOfBlock.size > 0),
      });
    }
    // message_delta's usage is cumulative; fields it leaves out come from message_start.
    const usage = anthropicUsage({ ...(this.#startUsage as object), ...(payload.usage as object) });
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

  #onError(payload: AnthropicStreamEvent): NeutralEvent[] {
    this.error = payload.error?.message ?? "upstream error";
    return [{ type: "error", message: this.error!, code: payload.error?.type }];
  }
}
