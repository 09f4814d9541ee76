/**
 * An upstream SSE body read as events, one at a time, with no stream pipeline: one reader, one
 * TextDecoder and the SSE parser's feed per chunk, in one object with one async method. At a
 * thousand open streams every object a waiting stream holds counts (docs/performance.md):
 * TransformStreams, a second async frame per read and a 64 KiB default read buffer did.
 */

import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";

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

const DONE: ReadableStreamReadDoneResult<never> = Object.freeze({ done: true, value: undefined });

class SseEventReader implements SseEvents {
  #byob?: ReadableStreamBYOBReader;
  #plain?: ReadableStreamDefaultReader<Uint8Array>;
  #buffer?: Uint8Array<ArrayBuffer>;
  #decoder = new TextDecoder();
  #queue: EventSourceMessage[] = [];
  #parser: EventSourceParser;
  #ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
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
        this.#parser.feed(this.#decoder.decode(chunk, { stream: true }));
      }
    }
    return { done: false, value: this.#queue.shift()! };
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

/** Reads `body` as SSE events. */
export function sseEvents(body: ReadableStream<Uint8Array>): SseEvents {
  return new SseEventReader(body);
}
