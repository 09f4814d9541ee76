/** Neutral events as a messages-API stream (named events, content blocks by index). */

import type { NeutralEvent, NeutralUsage, StopReason, StreamEncoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { handlersByType } from "../_dispatch.ts";
import { newMessageId } from "./_ids.ts";
import { ANTHROPIC_STOP, anthropicStopDetails } from "./_stop.ts";
import { anthropicStreamErrorType } from "./error_types.ts";
import { encodeAnthropicDeltaUsage, encodeAnthropicUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

type Event<T extends NeutralEvent["type"]> = Extract<NeutralEvent, { type: T }>;

const NO_USAGE: NeutralUsage = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 };

type OpenBlock = { kind: "text" | "thinking" | "tool_use"; index: number; call?: number };

/** Writes a messages stream for a client: every event named, blocks opened and closed in order. */
export class AnthropicStreamEncoder implements StreamEncoder {
  #model: string;
  #started = false;
  #blocks = 0;
  #open: OpenBlock | undefined;
  #calls = new Set<number>();
  #pending = new Map<number, string>();
  #stop: StopReason | undefined;
  #usage: NeutralUsage | undefined;
  readonly #handlers = handlersByType<NeutralEvent, string>({
    start: (event) => this.#start(event.id),
    text: (event) => this.#onText(event),
    reasoning: (event) => this.#onReasoning(event),
    reasoning_signature: (event) => this.#onReasoningSignature(event),
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

  constructor(model: string) {
    this.#model = model;
  }

  #event(type: string, fields: Json): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
  }

  #start(id = ""): string {
    if (this.#started) return "";
    this.#started = true;
    return this.#event("message_start", {
      message: {
        id: newMessageId(id),
        type: "message",
        role: "assistant",
        model: this.#model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        diagnostics: null,
        usage: encodeAnthropicUsage(NO_USAGE),
      },
    }) + this.#event("ping", {});
  }

  #close(): string {
    if (!this.#open) return "";
    const index = this.#open.index;
    this.#open = undefined;
    return this.#event("content_block_stop", { index });
  }

  #openBlock(kind: OpenBlock["kind"], contentBlock: Json, call?: number): string {
    const out = this.#close();
    this.#open = { kind, index: this.#blocks++, call };
    return out + this.#event("content_block_start", {
      index: this.#open.index,
      content_block: contentBlock,
    });
  }

  #delta(delta: Json): string {
    return this.#event("content_block_delta", { index: this.#open!.index, delta });
  }

  encode(event: NeutralEvent): string {
    return this.#handlers.get(event.type)?.(event) ?? "";
  }

  #onText(event: Event<"text">): string {
    let out = this.#start();
    if (this.#open?.kind !== "text") out += this.#openBlock("text", { type: "text", text: "" });
    // The hottest frame of a stream, written directly rather than through an object.
    return out +
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":${
        this.#open!.index
      },"delta":{"type":"text_delta","text":${JSON.stringify(event.text)}}}\n\n`;
  }

  #onReasoning(event: Event<"reasoning">): string {
    let out = this.#start();
    if (this.#open?.kind !== "thinking") {
      out += this.#openBlock("thinking", { type: "thinking", thinking: "", signature: "" });
    }
    return out + this.#delta({ type: "thinking_delta", thinking: event.text });
  }

  /** A signature ends its thinking block; one that comes alone gets an empty block of its own. */
  #onReasoningSignature(event: Event<"reasoning_signature">): string {
    let out = this.#start();
    if (this.#open?.kind !== "thinking" || event.standalone) {
      out += this.#openBlock("thinking", { type: "thinking", thinking: "", signature: "" });
    }
    return out + this.#delta({ type: "signature_delta", signature: event.signature }) +
      this.#close();
  }

  #onToolCall(event: Event<"tool_call">): string {
    let out = this.#start();
    if (!this.#calls.has(event.index)) out += this.#openCall(event);
    else if (this.#open?.call !== event.index) {
      // A fragment of a call whose block is not open: blocks cannot interleave, keep it.
      this.#pending.set(event.index, (this.#pending.get(event.index) ?? "") + event.arguments);
      return out;
    }
    return event.arguments
      ? out + this.#delta({ type: "input_json_delta", partial_json: event.arguments })
      : out;
  }

  /** Opens a call's block, with the fragments that came while another block was open. */
  #openCall(event: Event<"tool_call">): string {
    this.#calls.add(event.index);
    let out = this.#openBlock("tool_use", {
      type: "tool_use",
      id: event.id ?? `toolu_${event.index}`,
      name: event.name ?? "",
      input: {},
    }, event.index);
    const early = this.#pending.get(event.index);
    this.#pending.delete(event.index);
    if (early) out += this.#delta({ type: "input_json_delta", partial_json: early });
    return out;
  }

  end(): string {
    const stop = stopWithCalls(this.#stop ?? "stop", this.#calls.size > 0);
    const usage = this.#usage ?? NO_USAGE;
    return this.#start() + this.#close() +
      this.#event("message_delta", {
        delta: {
          stop_reason: ANTHROPIC_STOP[stop],
          stop_sequence: null,
          stop_details: anthropicStopDetails(stop),
          container: null,
        },
        usage: encodeAnthropicDeltaUsage(usage),
      }) + this.#event("message_stop", {});
  }

  error(message: string, code: string): string {
    return this.#event("error", { error: { type: anthropicStreamErrorType(code), message } });
  }
}
