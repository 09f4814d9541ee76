/**
 * ConverseStream events as neutral events. Each event of AWS's event stream is named by its
 * `:event-type` (messageStart, contentBlockStart, contentBlockDelta, contentBlockStop,
 * messageStop, metadata) and its data is that event's JSON; an exception frame arrives as an
 * `exception` event `{type, message}` (core/providers/bedrock.ts makes it so).
 */

import type { NeutralEvent, NeutralUsage, StreamDecoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { signatureFrom } from "../signature.ts";
import { readLenient } from "../../util/lenient_schema.ts";
import { type ConverseStreamEvent, converseStreamEventSchema } from "./answer_schemas.ts";
import { converseStop } from "./_stop.ts";
import { converseUsage } from "./_usage.ts";

/** Reads an upstream ConverseStream. Its end is `metadata` (usage), after `messageStop`. */
export class ConverseStreamDecoder implements StreamDecoder {
  completed = false;
  usage: NeutralUsage | undefined;
  error: string | undefined;
  #callOfBlock = new Map<number, number>();
  #stopped = false;

  decode(event: string | undefined, data: string): NeutralEvent[] {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [];
    }
    const payload = readLenient(converseStreamEventSchema, json);
    switch (event) {
      case "messageStart":
        return [{ type: "start", id: "", model: "" }];
      case "contentBlockStart":
        return this.#onBlockStart(payload);
      case "contentBlockDelta":
        return this.#onBlockDelta(payload);
      case "messageStop":
        return this.#onMessageStop(payload);
      case "metadata":
        return this.#onMetadata(payload);
      case "exception":
        this.error = payload.message ?? "upstream error";
        return [{ type: "error", message: this.error, code: payload.type }];
      default:
        return [];
    }
  }

  #onBlockStart(payload: ConverseStreamEvent): NeutralEvent[] {
    const toolUse = payload.start?.toolUse;
    if (!toolUse) return [];
    const index = this.#callOfBlock.size;
    this.#callOfBlock.set(payload.contentBlockIndex ?? index, index);
    return [{
      type: "tool_call",
      index,
      id: toolUse.toolUseId ?? "",
      name: toolUse.name ?? "",
      arguments: "",
    }];
  }

  #onBlockDelta(payload: ConverseStreamEvent): NeutralEvent[] {
    const delta = payload.delta;
    if (!delta) return [];
    if (delta.text) return [{ type: "text", text: delta.text }];
    if (delta.toolUse?.input) {
      const index = this.#callOfBlock.get(payload.contentBlockIndex ?? -1);
      return index === undefined
        ? []
        : [{ type: "tool_call", index, arguments: delta.toolUse.input }];
    }
    const reasoning = delta.reasoningContent;
    if (reasoning?.text) return [{ type: "reasoning", text: reasoning.text }];
    if (reasoning?.signature) {
      const signature = signatureFrom(reasoning.signature, { format: "bedrock-converse" });
      return signature ? [{ type: "reasoning_signature", signature }] : [];
    }
    if (reasoning?.redactedContent) {
      const signature = signatureFrom(reasoning.redactedContent, {
        format: "bedrock-converse",
        kind: "redacted",
      })!;
      return [{ type: "reasoning_signature", signature, standalone: true }];
    }
    return [];
  }

  #onMessageStop(payload: ConverseStreamEvent): NeutralEvent[] {
    this.#stopped = true;
    return [{
      type: "stop",
      reason: stopWithCalls(converseStop(payload.stopReason), this.#callOfBlock.size > 0),
    }];
  }

  #onMetadata(payload: ConverseStreamEvent): NeutralEvent[] {
    this.completed = this.#stopped;
    const usage = converseUsage(payload.usage);
    if (!usage) return [];
    this.usage = usage;
    return [{ type: "usage", usage }];
  }
}
