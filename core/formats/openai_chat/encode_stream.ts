/** Neutral events as a chat-completions stream for a client. */

import type { NeutralEvent, NeutralUsage, StopReason, StreamEncoder } from "../neutral.ts";
import { stopWithCalls } from "../neutral.ts";
import { handlersByType } from "../_dispatch.ts";
import { encodeChatUsage } from "./_usage.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

type Event<T extends NeutralEvent["type"]> = Extract<NeutralEvent, { type: T }>;

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
  readonly #handlers = handlersByType<NeutralEvent, string>({
    start: (event) => this.#start(event.id || undefined),
    text: (event) => this.#onText(event),
    reasoning: (event) => this.#start() + this.#chunk({ reasoning_content: event.text }),
    tool_call: (event) => this.#onToolCall(event),
    image: (event) => this.#onImage(event),
    stop: (event) => this.#onStop(event),
    usage: (event) => {
      this.#usage = event.usage;
      return "";
    },
  });

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
    // As OpenAI's first chunk: the role, empty content and no refusal.
    return this.#chunk({ role: "assistant", content: "", refusal: null });
  }

  encode(event: NeutralEvent): string {
    return this.#handlers.get(event.type)?.(event) ?? "";
  }

  #onText(event: Event<"text">): string {
    const start = this.#start();
    // The hottest frame of a stream, written directly rather than through an object.
    return start +
      `data: {"id":${
        JSON.stringify(this.#id)
      },"object":"chat.completion.chunk","created":${this.#created},"model":${
        JSON.stringify(this.#model)
      },"choices":[{"index":0,"delta":{"content":${
        JSON.stringify(event.text)
      }},"logprobs":null,"finish_reason":null}]${this.#includeUsage ? ',"usage":null' : ""}}\n\n`;
  }

  #onToolCall(event: Event<"tool_call">): string {
    this.#calls = Math.max(this.#calls, event.index + 1);
    const call: Json = { index: event.index, function: { arguments: event.arguments } };
    if (event.id !== undefined) {
      call.id = event.id;
      call.type = "function";
      call.function.name = event.name;
    }
    return this.#start() + this.#chunk({ tool_calls: [call] });
  }

  #onImage(event: Event<"image">): string {
    return this.#start() + this.#chunk({
      images: [{
        type: "image_url",
        image_url: { url: `data:${event.mimeType};base64,${event.data}` },
      }],
    });
  }

  #onStop(event: Event<"stop">): string {
    this.#stop = stopWithCalls(event.reason, this.#calls > 0);
    return this.#start() + this.#chunk({}, this.#stop);
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
