/**
 * Body capture of one text request, when its key has capture on (telemetry/body_capture.ts): the
 * request body, and the whole JSON answer or the text a stream delivered (read back from the
 * client's own stream format as it passes), redacted, bounded, written off the response path.
 */

import { createParser } from "eventsource-parser";
import { textInterfaceOf } from "../formats/interfaces.ts";
import type { RequestScope } from "../scope.ts";
import { boundedRedacted, type CapturedRequest } from "../telemetry/body_capture.ts";
import type { TextInbound } from "./inbound.ts";

/** Collects at most this many characters of a stream's text before bounding (a little more). */
const MAX_COLLECTED_CHARS = 64 * 1024;

/** The capture of one request; `startTextCapture` gives one only when its key is captured. */
export class TextCapture {
  #scope: RequestScope;
  #inbound: TextInbound;
  #written = false;

  constructor(scope: RequestScope, inbound: TextInbound) {
    this.#scope = scope;
    this.#inbound = inbound;
    scope.context.captured = true;
  }

  #write(
    answer: Pick<CapturedRequest, "response_kind" | "error"> & { body: string | null },
    secrets: readonly string[] = [],
  ): void {
    if (this.#written) return;
    this.#written = true;
    const { gateway, context, key } = this.#scope;
    const request = boundedRedacted(JSON.stringify(this.#inbound.body));
    const response = answer.body === null ? null : boundedRedacted(answer.body, secrets);
    const record: CapturedRequest = {
      request_id: context.id,
      key_id: key.id,
      at: new Date().toISOString(),
      interface: context.interface,
      model: this.#inbound.model,
      stream: this.#inbound.stream,
      request_body: request.text,
      response_body: response?.text ?? null,
      response_kind: answer.response_kind,
      error: answer.error === null ? null : boundedRedacted(answer.error, secrets).text,
      truncated: request.cut || (response?.cut ?? false),
    };
    gateway.track(gateway.captures.write(record)).catch((error) => {
      console.error(JSON.stringify({
        msg: "body capture not written",
        request_id: context.id,
        error: String(error),
      }));
    });
  }

  /** A whole JSON answer. `secrets`: the channel's keys, should an upstream quote one. */
  answered(body: string, secrets: readonly string[]): void {
    this.#write({ body, response_kind: "json", error: null }, secrets);
  }

  /** The request failed before any answer. */
  failed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.#write({ body: null, response_kind: "none", error: message });
  }

  /** `stream` as it is, its delivered text captured when it ends or the client leaves. */
  tap(stream: ReadableStream<Uint8Array>, secrets: readonly string[]): ReadableStream<Uint8Array> {
    const text = streamTextCollector(this.#inbound);
    const reader = stream.getReader();
    const finish = () =>
      this.#write({ body: text.result(), response_kind: "stream_text", error: null }, secrets);
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish();
            controller.close();
            return;
          }
          text.feed(value);
          controller.enqueue(value);
        } catch (error) {
          finish();
          controller.error(error);
        }
      },
      async cancel(reason) {
        finish();
        await reader.cancel(reason);
      },
    });
  }
}

/**
 * Reads the text out of a client stream in `inbound`'s format: SSE events decoded by the
 * format's own stream decoder. A Gemini JSON-array stream (not SSE) is kept as it came.
 */
function streamTextCollector(inbound: TextInbound) {
  const decoder = new TextDecoder();
  let collected = "";
  const add = (text: string) => {
    if (collected.length < MAX_COLLECTED_CHARS) collected += text;
  };
  if (inbound.framing === "json-array") {
    return {
      feed: (bytes: Uint8Array) => add(decoder.decode(bytes, { stream: true })),
      result: () => collected,
    };
  }
  const events = textInterfaceOf(inbound.format).codec.streamDecoder();
  const parser = createParser({
    onEvent(event) {
      if (event.data === "[DONE]") return;
      try {
        for (const neutral of events.decode(event.event, event.data)) {
          if (neutral.type === "text") add(neutral.text);
          else if (neutral.type === "tool_call") add(neutral.arguments);
        }
      } catch {
        // An event the decoder cannot read adds nothing to the text.
      }
    },
  });
  return {
    feed: (bytes: Uint8Array) => parser.feed(decoder.decode(bytes, { stream: true })),
    result: () => collected,
  };
}

/** The capture of this request if its key is captured now; undefined (no cost) otherwise. */
export function startTextCapture(
  scope: RequestScope,
  inbound: TextInbound,
): TextCapture | undefined {
  return scope.gateway.captures.isOn(scope.key.id) ? new TextCapture(scope, inbound) : undefined;
}
