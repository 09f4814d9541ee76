/** Upstream responses-API streams (typed events) as neutral events. */

import type { NeutralEvent, NeutralUsage, StreamDecoder } from "../neutral.ts";
import { signatureFrom } from "../signature.ts";
import { itemParts } from "./_item_parts.ts";
import { responsesStop } from "./_stop.ts";
import { responsesUsage } from "./_usage.ts";
import { type ResponsesStreamEvent, responsesStreamEventSchema } from "./answer_schemas.ts";
import { readLenient } from "../../util/lenient_schema.ts";

/** Reads an upstream responses stream. */
export class ResponsesStreamDecoder implements StreamDecoder {
  completed = false;
  usage: NeutralUsage | undefined;
  error: string | undefined;
  /** The sequence number after the last event's, for an event the gateway adds to the stream. */
  nextSequence = 0;
  #callByOutput = new Map<number, { index: number; streamed: boolean }>();

  decode(event: string | undefined, data: string): NeutralEvent[] {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [];
    }
    const payload = readLenient(responsesStreamEventSchema, json);
    const sequence = payload.sequence_number;
    if (typeof sequence === "number" && sequence >= this.nextSequence) {
      this.nextSequence = sequence + 1;
    }
    // A switch rather than a Map: type names parsed from the upstream are fresh strings, and
    // comparing one costs less than hashing it (bench/stream_cpu.ts).
    switch (payload.type ?? event) {
      case "response.created":
        return this.#onCreated(payload);
      case "response.output_item.added":
        return this.#onItemAdded(payload);
      case "response.output_text.delta":
      case "response.refusal.delta":
        return this.#onTextDelta(payload);
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return this.#onReasoningDelta(payload);
      case "response.function_call_arguments.delta":
        return this.#onArgumentsDelta(payload);
      case "response.output_item.done":
        return this.#onItemDone(payload);
      case "response.completed":
      case "response.incomplete":
        return this.#onFinished(payload);
      case "response.failed":
        return this.#onFailed(payload);
      case "error":
        return this.#onError(payload);
      default:
        return [];
    }
  }

  #onCreated(payload: ResponsesStreamEvent): NeutralEvent[] {
    return [{
      type: "start",
      id: payload.response?.id ?? "",
      model: payload.response?.model ?? "",
    }];
  }

  #onItemAdded(payload: ResponsesStreamEvent): NeutralEvent[] {
    if (payload.item?.type !== "function_call") return [];
    const index = this.#callByOutput.size;
    this.#callByOutput.set(payload.output_index!, { index, streamed: false });
    return [{
      type: "tool_call",
      index,
      id: payload.item.call_id!,
      name: payload.item.name!,
      arguments: "",
    }];
  }

  #onTextDelta(payload: ResponsesStreamEvent): NeutralEvent[] {
    return payload.delta ? [{ type: "text", text: payload.delta }] : [];
  }

  #onReasoningDelta(payload: ResponsesStreamEvent): NeutralEvent[] {
    return payload.delta ? [{ type: "reasoning", text: payload.delta }] : [];
  }

  #onArgumentsDelta(payload: ResponsesStreamEvent): NeutralEvent[] {
    const call = this.#callByOutput.get(payload.output_index!);
    if (!call || !payload.delta) return [];
    call.streamed = true;
    return [{ type: "tool_call", index: call.index, arguments: payload.delta }];
  }

  #onItemDone(payload: ResponsesStreamEvent): NeutralEvent[] {
    const item = payload.item;
    const call = this.#callByOutput.get(payload.output_index!);
    if (item?.type === "function_call" && call && !call.streamed && item.arguments) {
      return [{ type: "tool_call", index: call.index, arguments: item.arguments }];
    }
    if (item?.type === "reasoning" && item.encrypted_content) {
      const signature = signatureFrom(item.encrypted_content, { format: "openai-responses" })!;
      return [{ type: "reasoning_signature", signature }];
    }
    if (item?.type === "image_generation_call") {
      return itemParts(item).flatMap((part) =>
        part.type === "image" ? [{ type: "image", mimeType: part.mimeType, data: part.data }] : []
      );
    }
    return [];
  }

  #onFinished(payload: ResponsesStreamEvent): NeutralEvent[] {
    this.completed = true;
    const events: NeutralEvent[] = [{
      type: "stop",
      reason: responsesStop(payload.response, this.#callByOutput.size > 0),
    }];
    const usage = responsesUsage(payload.response?.usage);
    if (usage) {
      this.usage = usage;
      events.push({ type: "usage", usage });
    }
    return events;
  }

  #onFailed(payload: ResponsesStreamEvent): NeutralEvent[] {
    this.error = payload.response?.error?.message ?? "the upstream response failed";
    return [{ type: "error", message: this.error!, code: payload.response?.error?.code }];
  }

  #onError(payload: ResponsesStreamEvent): NeutralEvent[] {
    this.error = payload.message ?? payload.error?.message ?? "upstream error";
    return [{ type: "error", message: this.error!, code: payload.code ?? undefined }];
  }
}
