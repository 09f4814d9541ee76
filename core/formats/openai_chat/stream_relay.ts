/**
 * Relays one chat-completions SSE stream event by event. It reads usage as it passes, counts
 * output characters for estimates, renames the model, and — when the gateway itself asked the
 * upstream for usage — hides usage from a client that did not ask for it.
 */

import { convertOpenAIChatUsage } from "./convert_usage.ts";
import { openAIChatUsageSchema } from "./answer_schemas.ts";
import type { TokenUsage } from "../../billing/usage.ts";

interface ChatChunk {
  model?: string;
  choices?: Array<{
    finish_reason?: string | null;
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      refusal?: string | null;
      tool_calls?: Array<{ function?: { name?: string; arguments?: string } }> | null;
    };
  }>;
  usage?: unknown;
  error?: unknown;
}

export interface StreamRelayOptions {
  /** Whether the client itself asked for `stream_options.include_usage`. */
  clientWantsUsage: boolean;
  /** The model name the upstream uses, and the public one the client asked for. */
  upstreamModel: string;
  publicModel: string;
}

/** Per-stream state: what passed, and what the upstream reported. */
export class OpenAIChatStreamRelay {
  usage: TokenUsage | undefined;
  outputChars = 0;
  sawDone = false;
  upstreamError: unknown;
  #finished = false;
  #options: StreamRelayOptions;
  #renameFrom: string | undefined;
  #renameTo: string | undefined;

  constructor(options: StreamRelayOptions) {
    this.#options = options;
    if (options.upstreamModel !== options.publicModel) {
      this.#renameFrom = `"model":${JSON.stringify(options.upstreamModel)}`;
      this.#renameTo = `"model":${JSON.stringify(options.publicModel)}`;
    }
  }

  /**
   * Whether the stream reached its normal end: `[DONE]`, or (from upstreams that leave it out)
   * a finish reason and then usage. Usage alone is not an end: a stream can break after it.
   */
  get completed(): boolean {
    return this.sawDone || (this.#finished && this.usage !== undefined);
  }

  /** Takes one event's data and returns the data to send on, or null to send nothing. */
  relay(data: string): string | null {
    if (data === "[DONE]") {
      this.sawDone = true;
      return data;
    }
    let chunk: ChatChunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      return data;
    }
    if (chunk.error !== undefined) {
      this.upstreamError = chunk.error;
      return data;
    }
    for (const choice of chunk.choices ?? []) {
      if (choice.finish_reason) this.#finished = true;
      const delta = choice.delta;
      if (!delta) continue;
      // What an estimate counts (core/text/estimate.ts): text, reasoning, tool arguments.
      this.outputChars += (delta.content?.length ?? 0) +
        ((delta.reasoning_content ?? delta.reasoning)?.length ?? 0) + (delta.refusal?.length ?? 0);
      for (const call of delta.tool_calls ?? []) {
        this.outputChars += call.function?.arguments?.length ?? 0;
      }
    }
    // Only usage is read through its schema: the rest of a chunk is passed on as it came.
    const usage = chunk.usage ? openAIChatUsageSchema.parse(chunk.usage) : undefined;
    if (usage) this.usage = convertOpenAIChatUsage(usage);
    let out = data;
    if (!this.#options.clientWantsUsage && "usage" in chunk) {
      if (chunk.usage && (chunk.choices?.length ?? 0) === 0) return null;
      const cut = chunk.usage === null ? withoutTrailingNullUsage(data) : undefined;
      if (cut !== undefined) {
        out = cut;
      } else {
        delete chunk.usage;
        out = JSON.stringify(chunk);
      }
    }
    if (this.#renameFrom && out.includes(this.#renameFrom)) {
      out = out.replace(this.#renameFrom, this.#renameTo!);
    }
    return out;
  }
}

const TRAILING_NULL_USAGE = ',"usage":null}';

/**
 * `data` without its `"usage":null` member when that member is the object's last and the only
 * `"usage"` in the text — how OpenAI writes every chunk of a stream that asked for usage
 * (`stream_options.include_usage`), which the gateway always does — else undefined. Cutting the
 * text saves a parse-edit-serialise of every event; the text is otherwise the upstream's as sent.
 */
function withoutTrailingNullUsage(data: string): string | undefined {
  const at = data.length - TRAILING_NULL_USAGE.length;
  if (!data.endsWith(TRAILING_NULL_USAGE) || data.indexOf('"usage"') !== at + 1) return undefined;
  return data.slice(0, at) + "}";
}
