/**
 * An upstream SSE body read as events, one at a time, with no stream pipeline: one reader, one
 * TextDecoder and the SSE parser feed per chunk. Two TransformStreams per open stream
 * (TextDecoderStream, EventSourceParserStream) cost memory at a thousand open streams
 * (docs/performance.md); this keeps only what the read needs.
 */

import { createParser, type EventSourceMessage } from "eventsource-parser";

/** The events of one SSE body. */
export interface SseEvents {
  /** The next event, or done at the end of the body (an unfinished last event is dropped). */
  read(): Promise<ReadableStreamReadResult<EventSourceMessage>>;
  /** Stops reading and cancels the body. */
  cancel(reason?: unknown): Promise<void>;
}

/** The buffer each read fills: a fetch body's default reads hold 64 KiB per waiting stream. */
const READ_BYTES = 4096;

/** Reads of `body` into one small reused buffer where the body is a byte stream. */
function chunkReader(body: ReadableStream<Uint8Array>) {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    const reader = body.getReader();
    return { read: () => reader.read(), cancel: (reason?: unknown) => reader.cancel(reason) };
  }
  let buffer = new Uint8Array(READ_BYTES);
  return {
    async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
      const result = await byob.read(buffer);
      if (result.value) buffer = new Uint8Array(result.value.buffer, 0, READ_BYTES);
      return result.done ? { done: true, value: undefined } : result;
    },
    cancel: (reason?: unknown) => byob.cancel(reason),
  };
}

/** Reads `body` as SSE events. */
export function sseEvents(body: ReadableStream<Uint8Array>): SseEvents {
  const reader = chunkReader(body);
  const decoder = new TextDecoder();
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  let ended = false;
  return {
    async read() {
      while (!queue.length) {
        if (ended) return { done: true, value: undefined };
        const chunk = await reader.read();
        if (chunk.done) {
          ended = true;
          parser.feed(decoder.decode());
        } else {
          parser.feed(decoder.decode(chunk.value, { stream: true }));
        }
      }
      return { done: false, value: queue.shift()! };
    },
    cancel(reason) {
      ended = true;
      queue.length = 0;
      return reader.cancel(reason);
    },
  };
}
