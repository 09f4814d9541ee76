/** Neutral events as a responses-API stream (typed events with sequence numbers). */

import type { NeutralEvent, NeutralUsage, StopReason, StreamEncoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { handlersByType } from "../_dispatch.ts";
import { newItemId } from "./_ids.ts";
import { responseObject } from "./_response_object.ts";
import { freeformInput } from "./encode_response.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

type Event<T extends NeutralEvent["type"]> = Extract<NeutralEvent, { type: T }>;

interface OpenItem {
  item: Json;
  outputIndex: number;
}

/** Writes a responses stream for a client, in the order the official SDK's helpers expect. */
export class ResponsesStreamEncoder implements StreamEncoder {
  #sequence = 0;
  #id = newItemId("resp");
  #created = Math.floor(Date.now() / 1000);
  #model: string;
  #started = false;
  #output: Json[] = [];
  #text: OpenItem | undefined;
  #reasoning: OpenItem | undefined;
  #calls = new Map<number, OpenItem>();
  /** The JSON arguments of open free-form calls, whose input is read from them at the end. */
  #freeformArguments = new Map<OpenItem, string>();
  #stop: StopReason | undefined;
  #usage: NeutralUsage | undefined;
  readonly #handlers = handlersByType<NeutralEvent, string>({
    start: (event) => this.#start(event.id || undefined),
    text: (event) => this.#onText(event),
    reasoning: (event) => this.#onReasoning(event),
    reasoning_signature: (event) => this.#onReasoningSignature(event),
    tool_call: (event) => this.#onToolCall(event),
    image: (event) => this.#onImage(event),
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
    return `event: ${type}\ndata: ${
      JSON.stringify({ type, sequence_number: this.#sequence++, ...fields })
    }\n\n`;
  }

  #response(status: "in_progress" | "completed" | "incomplete") {
    return responseObject({
      id: this.#id,
      created: this.#created,
      model: this.#model,
      status,
      output: status === "in_progress" ? [] : this.#output,
      stop: this.#stop,
      usage: status === "in_progress" ? undefined : this.#usage,
    });
  }

  #start(id?: string): string {
    if (this.#started) return "";
    this.#started = true;
    if (id) this.#id = id.startsWith("resp_") ? id : `resp_${id}`;
    const response = this.#response("in_progress");
    return this.#event("response.created", { response }) +
      this.#event("response.in_progress", { response });
  }

  #open(item: Json): OpenItem {
    const open = { item, outputIndex: this.#output.length };
    this.#output.push(item);
    return open;
  }

  #closeText(): string {
    const open = this.#text;
    if (!open) return "";
    this.#text = undefined;
    const part = open.item.content[0];
    open.item.status = "completed";
    const at = { item_id: open.item.id, output_index: open.outputIndex, content_index: 0 };
    return this.#event("response.output_text.done", { ...at, text: part.text, logprobs: [] }) +
      this.#event("response.content_part.done", { ...at, part }) +
      this.#event("response.output_item.done", { output_index: open.outputIndex, item: open.item });
  }

  #closeReasoning(): string {
    const open = this.#reasoning;
    if (!open) return "";
    this.#reasoning = undefined;
    const part = open.item.summary[0];
    const at = { item_id: open.item.id, output_index: open.outputIndex, summary_index: 0 };
    return this.#event("response.reasoning_summary_text.done", { ...at, text: part.text }) +
      this.#event("response.reasoning_summary_part.done", { ...at, part }) +
      this.#event("response.output_item.done", { output_index: open.outputIndex, item: open.item });
  }

  #closeCalls(): string {
    let out = "";
    for (const open of this.#calls.values()) {
      open.item.status = "completed";
      if (open.item.type === "custom_tool_call") {
        out += this.#closeFreeformCall(open);
        continue;
      }
      if (!open.item.arguments) open.item.arguments = "{}";
      out += this.#event("response.function_call_arguments.done", {
        item_id: open.item.id,
        output_index: open.outputIndex,
        arguments: open.item.arguments,
      }) +
        this.#event("response.output_item.done", {
          output_index: open.outputIndex,
          item: open.item,
        });
    }
    this.#calls.clear();
    this.#freeformArguments.clear();
    return out;
  }

  /**
   * A free-form call's input is a string inside the upstream's JSON arguments, readable only
   * once they are whole: one delta and the done event at the end.
   */
  #closeFreeformCall(open: OpenItem): string {
    const at = { item_id: open.item.id, output_index: open.outputIndex };
    open.item.input = freeformInput(this.#freeformArguments.get(open) ?? "");
    return (open.item.input
      ? this.#event("response.custom_tool_call_input.delta", { ...at, delta: open.item.input })
      : "") +
      this.#event("response.custom_tool_call_input.done", { ...at, input: open.item.input }) +
      this.#event("response.output_item.done", { output_index: open.outputIndex, item: open.item });
  }

  encode(event: NeutralEvent): string {
    return this.#handlers.get(event.type)?.(event) ?? "";
  }

  #onText(event: Event<"text">): string {
    let out = this.#start();
    if (!this.#text) out += this.#closeReasoning() + this.#closeCalls() + this.#openText();
    const text = this.#text!;
    text.item.content[0].text += event.text;
    // The hottest frame of a stream, written directly rather than through an object.
    return out +
      `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${this
        .#sequence++},"item_id":"${text.item.id}","output_index":${text.outputIndex},"content_index":0,"delta":${
        JSON.stringify(event.text)
      },"logprobs":[]}\n\n`;
  }

  #openText(): string {
    this.#text = this.#open({
      id: newItemId("msg"),
      type: "message",
      status: "in_progress",
      role: "assistant",
      content: [{ type: "output_text", text: "", annotations: [], logprobs: [] }],
    });
    const { item, outputIndex } = this.#text;
    return this.#event("response.output_item.added", {
      output_index: outputIndex,
      item: { ...item, content: [] },
    }) + this.#event("response.content_part.added", {
      item_id: item.id,
      output_index: outputIndex,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [], logprobs: [] },
    });
  }

  #onReasoning(event: Event<"reasoning">): string {
    let out = this.#start();
    if (!this.#reasoning) out += this.#closeText() + this.#closeCalls() + this.#openReasoning();
    const reasoning = this.#reasoning!;
    reasoning.item.summary[0].text += event.text;
    return out + this.#event("response.reasoning_summary_text.delta", {
      item_id: reasoning.item.id,
      output_index: reasoning.outputIndex,
      summary_index: 0,
      delta: event.text,
    });
  }

  #openReasoning(): string {
    this.#reasoning = this.#open({
      id: newItemId("rs"),
      type: "reasoning",
      summary: [{ type: "summary_text", text: "" }],
    });
    const { item, outputIndex } = this.#reasoning;
    return this.#event("response.output_item.added", {
      output_index: outputIndex,
      item: { ...item, summary: [] },
    }) + this.#event("response.reasoning_summary_part.added", {
      item_id: item.id,
      output_index: outputIndex,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    });
  }

  /** A signature ends its reasoning item; one that comes alone gets an item of its own. */
  #onReasoningSignature(event: Event<"reasoning_signature">): string {
    let out = this.#start();
    if (event.standalone) out += this.#closeReasoning();
    if (!this.#reasoning) out += this.#closeText() + this.#closeCalls() + this.#openReasoning();
    this.#reasoning!.item.encrypted_content = event.signature;
    return out + this.#closeReasoning();
  }

  #onToolCall(event: Event<"tool_call">): string {
    let out = this.#start();
    let open = this.#calls.get(event.index);
    if (!open) {
      out += this.#closeText() + this.#closeReasoning();
      open = this.#openCall(event);
      out += this.#event("response.output_item.added", {
        output_index: open.outputIndex,
        item: { ...open.item },
      });
    }
    if (!event.arguments) return out;
    if (open.item.type === "custom_tool_call") {
      this.#freeformArguments.set(
        open,
        (this.#freeformArguments.get(open) ?? "") + event.arguments,
      );
      return out;
    }
    open.item.arguments += event.arguments;
    return out + this.#event("response.function_call_arguments.delta", {
      item_id: open.item.id,
      output_index: open.outputIndex,
      delta: event.arguments,
    });
  }

  #openCall(event: Event<"tool_call">): OpenItem {
    const namespace = event.namespace !== undefined ? { namespace: event.namespace } : {};
    const open = this.#open(
      event.freeform
        ? {
          id: newItemId("ctc"),
          type: "custom_tool_call",
          status: "in_progress",
          call_id: event.id ?? `call_${event.index}`,
          name: event.name ?? "",
          input: "",
          ...namespace,
        }
        : {
          id: newItemId("fc"),
          type: "function_call",
          status: "in_progress",
          call_id: event.id ?? `call_${event.index}`,
          name: event.name ?? "",
          arguments: "",
          ...namespace,
        },
    );
    this.#calls.set(event.index, open);
    return open;
  }

  #onImage(event: Event<"image">): string {
    const out = this.#start() + this.#closeText() + this.#closeReasoning();
    const open = this.#open({
      id: newItemId("ig"),
      type: "image_generation_call",
      status: "completed",
      result: event.data,
    });
    return out +
      this.#event("response.output_item.added", {
        output_index: open.outputIndex,
        item: open.item,
      }) +
      this.#event("response.output_item.done", {
        output_index: open.outputIndex,
        item: open.item,
      });
  }

  end(): string {
    const out = this.#start() + this.#closeText() + this.#closeReasoning() + this.#closeCalls();
    const madeCalls = this.#output.some((item) =>
      item.type === "function_call" || item.type === "custom_tool_call"
    );
    this.#stop = stopWithCalls(this.#stop ?? "stop", madeCalls);
    const incomplete = this.#stop === "length" || this.#stop === "content_filter";
    const status = incomplete ? "incomplete" : "completed";
    return out + this.#event(`response.${status}`, { response: this.#response(status) });
  }

  error(message: string, code: string): string {
    return this.#event("error", { code, message, param: null });
  }
}
