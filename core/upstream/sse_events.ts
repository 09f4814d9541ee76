/** The SSE framing of upstream streams, the default for a provider that sets no `decodeStream`. */

import { createParser, type EventSourceParser } from "eventsource-parser";
import {
  DEFAULT_MAX_EVENT_BYTES,
  framedEvents,
  type StreamFraming,
  type UpstreamEvent,
  type UpstreamEvents,
} from "./upstream_events.ts";

export { DEFAULT_MAX_EVENT_BYTES };

/** The events of one SSE body. */
export type SseEvents = UpstreamEvents;

/** SSE cut into events by eventsource-parser, which survives `\r\n` split across chunks. */
class SseFraming implements StreamFraming {
  #decoder = new TextDecoder();
  #parser: EventSourceParser;
  #emit: (event: UpstreamEvent) => void = () => {};

  constructor() {
    this.#parser = createParser({ onEvent: (event) => this.#emit(event) });
  }

  feed(chunk: Uint8Array, emit: (event: UpstreamEvent) => void): void {
    this.#emit = emit;
    this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
  }

  end(emit: (event: UpstreamEvent) => void): void {
    this.#emit = emit;
    this.#parser.feed(this.#decoder.decode());
  }

  reset(): void {
    this.#parser.reset({ consume: false });
  }
}

/**
 * Reads `body` as SSE events. An event longer than `maxEventBytes` (counted in bytes received
 * since the event before it, to within one read) makes `read()` throw `too_large`, having
 * cancelled the body: the stream is broken, never buffered whole.
 */
export function sseEvents(
  body: ReadableStream<Uint8Array>,
  options: { maxEventBytes?: number } = {},
): SseEvents {
  return framedEvents(body, new SseFraming(), options);
}

/** A provider's stream read as SSE (the default `decodeStream`). */
export function decodeSseStream(
  response: Response,
  options: { maxEventBytes?: number } = {},
): UpstreamEvents {
  return sseEvents(response.body!, options);
}
