/**
 * An upstream SSE body read as events, one at a time, with no stream pipeline: one reader, one
 * TextDecoder and the SSE parser's feed per chunk, in one object with one async method. At a
 * thousand open streams every object a waiting stream holds counts (docs/performance.md):
 * TransformStreams, a second async frame per read and a 64 KiB default read buffer did.
 */

import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { UpstreamAttemptError } from "./attempt.ts";

/** The events of one SSE body. */
export interface SseEvents {
  /** The next event, or done at the end of the body (an unfinished last event is dropped). */
  read(): Promise<ReadableStreamReadResult<EventSourceMessage>>;
  /**
   * The next event already parsed from what the upstream has sent, without reading more; undefined
   * when none is. Lets the pump send every event of one upstream read as one chunk.
   */
  take(): EventSourceMessage | undefined;
  /** Stops reading and cancels the body. */
  cancel(reason?: unknown): Promise<void>;
}

/** The buffer each read fills: a fetch body's default reads hold 64 KiB per waiting stream. */
const READ_BYTES = 4096;

/** The largest event read when the caller sets none (GATEWAY_UPSTREAM_EVENT_MAX_MB's default). */
export const DEFAULT_MAX_EVENT_BYTES = 8 * 1024 * 1024;

const DONE: ReadableStreamReadDoneResult<never> = Object.freeze({ done: true, value: undefined });

class SseEventReader implements SseEvents {
  #byob?: ReadableStreamBYOBReader;
  #plain?: ReadableStreamDefaultReader<Uint8Array>;
  #buffer?: Uint8Array<ArrayBuffer>;
  #decoder = new TextDecoder();
  #queue: EventSourceMessage[] = [];
  #parser: EventSourceParser;
  #ended = false;
  #maxEventBytes: number;
  /** Bytes fed to the parser since it last gave an event: what it may be holding. */
  #pendingBytes = 0;

  constructor(body: ReadableStream<Uint8Array>, maxEventBytes: number) {
    this.#maxEventBytes = maxEventBytes;
    try {
      this.#byob = body.getReader({ mode: "byob" });
      this.#buffer = new Uint8Array(READ_BYTES);
    } catch {
      this.#plain = body.getReader();
    }
    const queue = this.#queue;
    this.#parser = createParser({ onEvent: (event) => queue.push(event) });
  }

  async read(): Promise<ReadableStreamReadResult<EventSourceMessage>> {
    while (!this.#queue.length) {
      if (this.#ended) return DONE;
      let chunk: Uint8Array | undefined;
      if (this.#byob) {
        const result = await this.#byob.read(this.#buffer!);
        chunk = result.value;
        // The read hands the buffer back (transferred); the next read reuses it whole.
        if (chunk) this.#buffer = new Uint8Array(chunk.buffer as ArrayBuffer, 0, READ_BYTES);
        if (result.done) chunk = undefined;
      } else {
        chunk = (await this.#plain!.read()).value;
      }
      if (this.#ended) return DONE;
      if (chunk === undefined) {
        this.#ended = true;
        this.#parser.feed(this.#decoder.decode());
      } else {
        const queued = this.#queue.length;
        this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
        // An event ended inside this chunk: what follows it is less than the chunk, so counted
        // from zero the cap holds to within one read.
        this.#pendingBytes = this.#queue.length > queued ? 0 : this.#pendingBytes + chunk.length;
        if (this.#pendingBytes > this.#maxEventBytes) await this.#tooLarge();
      }
    }
    return { done: false, value: this.#queue.shift()! };
  }

  /** Stops at an event over the cap: the parser would hold all of it. */
  async #tooLarge(): Promise<never> {
    this.#ended = true;
    this.#queue.length = 0;
    this.#parser.reset({ consume: false });
    await (this.#byob ?? this.#plain!).cancel().catch(() => {});
    throw new UpstreamAttemptError(
      `too_large: an event of the upstream's stream is larger than ${this.#maxEventBytes} bytes`,
      { retryable: true, errorClass: "too_large" },
    );
  }

  take(): EventSourceMessage | undefined {
    return this.#queue.shift();
  }

  cancel(reason?: unknown): Promise<void> {
    this.#ended = true;
    this.#queue.length = 0;
    return (this.#byob ?? this.#plain!).cancel(reason);
  }
}

/**
 * Reads `body` as SSE events. An event longer than `maxEventBytes` (counted in bytes received
 * since the event before it, to within one read) makes `read()` throw `too_large`, having
 * cancelled the body: the stream is broken, never buffered whole.
 */
export function sseEvents(
  body: ReadableStream<Uint8Array>,
  { maxEventBytes = DEFAULT_MAX_EVENT_BYTES }: { maxEventBytes?: number } = {},
): SseEvents {
  return new SseEventReader(body, maxEventBytes);
}
