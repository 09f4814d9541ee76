/**
 * What every simulated text upstream answers, decided from the few facts each reads out of its
 * own request format: tool calls when tools are offered (two at once, or the one tool_choice
 * names) and the last turn carries no tool results; otherwise an echo of the last user text that
 * mentions images and tool results it received; reasoning when asked for; cut at max tokens.
 * The four simulators only differ in how they write this on the wire, as the real APIs do.
 */

export interface ScriptInput {
  lastUserText: string;
  /** All text of the request, for prompt tokens. */
  allText: string;
  messages: number;
  tools: string[];
  toolChoice?: "auto" | "none" | "required" | { name: string };
  /** Tool results in the last user turn. */
  toolResults: string[];
  images: number;
  maxTokens?: number;
  reasoning: boolean;
  /** Tools to call by name in place of the first two offered; names not offered are skipped. */
  callTools?: string[];
  /**
   * Output tokens reported beyond those written: an upstream whose count exceeds the request's
   * bound (it ignored max_tokens in its bill), believable up to `believableUsage`'s limit.
   */
  extraOutputTokens?: number;
}

export interface ScriptedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface Script {
  reasoning: string;
  text: string;
  calls: ScriptedCall[];
  stop: "stop" | "length" | "tool_calls";
  usage: { input: number; cached: number; output: number; reasoning: number };
}

export const IMAGE_INPUT_TOKENS = 85;

export function script(input: ScriptInput, cachedTokens = 0): Script {
  const choice = input.toolChoice;
  const mustCall = choice === "required" || typeof choice === "object";
  const callTools = input.tools.length > 0 && choice !== "none" &&
    (mustCall || input.toolResults.length === 0);
  const chosen = (input.callTools ?? []).filter((name) => input.tools.includes(name));
  const names = typeof choice === "object"
    ? [choice.name]
    : chosen.length
    ? chosen
    : input.tools.slice(0, 2);
  const calls = callTools
    ? names.map((name, index) => ({
      id: `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`,
      name,
      args: { city: `City ${index}`, unit: "celsius", index },
    }))
    : [];
  let text = callTools ? "" : `Echo: ${input.lastUserText}` +
    (input.images ? ` [images: ${input.images}]` : "") +
    (input.toolResults.length ? ` [tool results: ${input.toolResults.join(" | ")}]` : "");
  let stop: Script["stop"] = callTools ? "tool_calls" : "stop";
  if (input.maxTokens && Math.ceil(text.length / 4) > input.maxTokens) {
    text = text.slice(0, input.maxTokens * 4);
    stop = "length";
  }
  const reasoning = input.reasoning ? `Considering: ${input.lastUserText}` : "";
  const inputTokens = Math.ceil(input.allText.length / 4) + 3 * input.messages +
    input.images * IMAGE_INPUT_TOKENS;
  const reasoningTokens = Math.ceil(reasoning.length / 4);
  const outputChars = text.length +
    calls.reduce((n, call) => n + JSON.stringify(call.args).length, 0);
  return {
    reasoning,
    text,
    calls,
    stop,
    usage: {
      input: inputTokens,
      cached: Math.min(cachedTokens, inputTokens),
      output: Math.max(1, Math.ceil(outputChars / 4)) + reasoningTokens +
        (input.extraOutputTokens ?? 0),
      reasoning: reasoningTokens,
    },
  };
}

/** `text` in pieces of `size` characters. */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a simulated stream errors with to drop its connection midway. Deno's server then aborts
 * the response, so the gateway reads a body that breaks off, as on a real connection loss.
 */
export class SimulatedConnectionLoss extends Error {
  constructor() {
    super("simulated connection loss");
    this.name = "SimulatedConnectionLoss";
  }
}

/**
 * `onError` for the simulators' `Deno.serve`. A body that failed with SimulatedConnectionLoss is
 * the fault doing its job, so it is not logged; anything else is logged and answered as Deno's
 * default handler does.
 */
export function simulatorOnError(error: unknown): Response {
  if (!(error instanceof SimulatedConnectionLoss)) console.error(error);
  return new Response("Internal Server Error", { status: 500 });
}

/**
 * Faults every simulated text stream can show. `in_stream_error`: the format's error event in
 * place of frame `afterFrames`, with `message` (a test may make it quote the caller's key) in
 * place of the simulator's own. `oversized_event`: frame `afterFrames` sent with `bytes` of JSON
 * whitespace inside it — still the same valid event, only huge.
 */
export type StreamFault =
  | { kind: "die_mid_stream"; afterFrames: number }
  | { kind: "in_stream_error"; afterFrames: number; message?: string }
  | { kind: "oversized_event"; afterFrames: number; bytes: number }
  /**
   * The format's usage frame in place of frame `afterFrames`, then the stream breaks: a dropped
   * connection, the in-stream error event, or a malformed frame and the end.
   */
  | { kind: "usage_then_break"; afterFrames: number; how?: StreamBreak };

/** How a stream breaks after its usage (`usage_then_break`). */
export type StreamBreak = "drop" | "error_event" | "malformed";

/** A frame no SSE reader can make JSON of. */
export const MALFORMED_FRAME = 'data: {"truncated": [\n\n';

function frameAt(
  frame: string | ((sent: number, message?: string) => string) | undefined,
  sent: number,
  message?: string,
): string {
  return typeof frame === "function" ? frame(sent, message) : frame ?? "";
}

/**
 * `frame` (`data: {…}` with an optional `event:` line before it) with `bytes` spaces after the
 * data's opening brace: whitespace JSON allows, so the event means what it meant.
 */
export function oversizedFrame(frame: string, bytes: number): string {
  const at = frame.indexOf("data: {") + "data: {".length;
  return frame.slice(0, at) + " ".repeat(bytes) + frame.slice(at);
}

/**
 * A response streaming `frames`, each written in two pieces cut at an odd offset (as TCP may
 * deliver it), with `errorFrame`, a dropped connection, or `usageFrame` and then a break in
 * place of frame `afterFrames`.
 */
export function frameStream(
  frames: string[],
  options: {
    fault?: StreamFault;
    /**
     * A frame, or a function of the number of frames sent before it (a sequence number) and of
     * the fault's `message`.
     */
    errorFrame?: string | ((sent: number, message?: string) => string);
    usageFrame?: string | ((sent: number) => string);
    delayMs?: number;
    signal: AbortSignal;
    onCancel?: () => void;
    contentType?: string;
  },
): Response {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [sent, planned] of frames.entries()) {
        if (cancelled || options.signal.aborted) return;
        let frame = planned;
        const fault = options.fault;
        if (fault?.kind === "oversized_event" && sent === fault.afterFrames) {
          frame = oversizedFrame(frame, fault.bytes);
        } else if (fault && sent === fault.afterFrames) {
          if (fault.kind === "in_stream_error") {
            controller.enqueue(encoder.encode(frameAt(options.errorFrame, sent, fault.message)));
            controller.close();
            return;
          }
          if (fault.kind === "usage_then_break") {
            controller.enqueue(encoder.encode(frameAt(options.usageFrame, sent)));
            if (fault.how === "error_event" || fault.how === "malformed") {
              const last = fault.how === "malformed"
                ? MALFORMED_FRAME
                : frameAt(options.errorFrame, sent + 1);
              controller.enqueue(encoder.encode(last));
              controller.close();
              return;
            }
          }
          if (sent > 0 || fault.kind === "usage_then_break") await sleep(30);
          controller.error(new SimulatedConnectionLoss());
          return;
        }
        const cut = Math.max(1, Math.floor(frame.length / 2) + (sent % 7));
        controller.enqueue(encoder.encode(frame.slice(0, cut)));
        controller.enqueue(encoder.encode(frame.slice(cut)));
        if (options.delayMs) await sleep(options.delayMs);
      }
      if (!cancelled) controller.close();
    },
    cancel() {
      cancelled = true;
      options.onCancel?.();
    },
  });
  return new Response(stream, {
    headers: { "content-type": options.contentType ?? "text/event-stream" },
  });
}
