/** Chat-completions streams to and from neutral events. */

import type {
  NeutralEvent,
  NeutralUsage,
  StopReason,
  StreamDecoder,
  StreamEncoder,
} from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { chatStopReason, chatUsage, encodeChatUsage } from "./response_codec.ts";

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

/** Writes a chat stream for a client: role first, tool calls by index, usage last if asked. */
export class ChatStreamEncoder implements StreamEncoder {
  #id = "";
  #model: string;
  #created = Math.floor(Date.now() / 1000);
  #includeUsage: boolean;
  #usage: NeutralUsage | undefined;
  #stop: StopReason | undefined;
  #calls = 0;
  #started = false;

  constructor(model: string, includeUsage: boolean) {
    this.#model = model;
    this.#includeUsage = includeUsage;
  }

  #chunk(delta: Json, finish: string | null = null): string {
    return `data: ${
      JSON.stringify({
        id: this.#id,
        object: "chat.completion.chunk",
        created: this.#created,
        model: this.#model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(this.#includeUsage ? { usage: null } : {}),
      })
    }\n\n`;
  }

  #start(id = `chatcmpl-${crypto.randomUUID()}`): string {
    if (this.#started) return "";
    this.#started = true;
    this.#id = id.startsWith("chatcmpl") ? id : `chatcmpl-${id}`;
    return this.#chunk({ role: "assistant", content: "" });
  }

  encode(event: NeutralEvent): string {
    switch (event.type) {
      case "start":
        return this.#start(event.id || undefined);
      case "text": {
        const start = this.#start();
        // The hottest frame of a stream, written directly rather than through an object.
        return start +
          `data: {"id":${
            JSON.stringify(this.#id)
          },"object":"chat.completion.chunk","created":${this.#created},"model":${
            JSON.stringify(this.#model)
          },"choices":[{"index":0,"delta":{"content":${
            JSON.stringify(event.text)
          }},"logprobs":null,"finish_reason":null}]${
            this.#includeUsage ? ',"usage":null' : ""
          }}\n\n`;
      }
      case "reasoning":
        return this.#start() + this.#chunk({ reasoning_content: event.text });
      case "tool_call": {
        this.#calls = Math.max(this.#calls, event.index + 1);
        const call: Json = { index: event.index, function: { arguments: event.arguments } };
        if (event.id !== undefined) {
          call.id = event.id;
          call.type = "function";
          call.function.name = event.name;
        }
        return this.#start() + this.#chunk({ tool_calls: [call] });
      }
      case "image":
        return this.#start() + this.#chunk({
          images: [{
            type: "image_url",
            image_url: { url: `data:${event.mimeType};base64,${event.data}` },
          }],
        });
      case "stop":
        this.#stop = stopWithCalls(event.reason, this.#calls > 0);
        return this.#start() + this.#chunk({}, this.#stop);
      case "usage":
        this.#usage = event.usage;
        return "";
      default:
        return "";
    }
  }

  end(): string {
    let out = this.#start();
    if (this.#stop === undefined) out += this.#chunk({}, "stop");
    if (this.#includeUsage && this.#usage) {
      out += `data: ${
        JSON.stringify({
          id: this.#id,
          object: "chat.completion.chunk",
          created: this.#created,
          model: this.#model,
          choices: [],
          usage: encodeChatUsage(this.#usage),
        })
      }\n\n`;
    }
    return out + "data: [DONE]\n\n";
  }

  error(message: string, code: string): string {
    return `data: ${
      JSON.stringify({ error: { message, type: "upstream_error", param: null, code } })
    }\n\n`;
  }
}
