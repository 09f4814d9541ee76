/**
 * An upstream's stream read as events, whatever its framing (SSE, JSON lines, a binary event
 * stream): one reader, the framing's parser fed each chunk, in one object with one async method.
 * At a thousand open streams every object a waiting stream holds counts (docs/performance.md):
 * TransformStreams, a second async frame per read and a 64 KiB default read buffer did.
 *
 * The event size cap is kept here, for every framing: the bytes fed to the framing since it last
 * gave an event are what it may be holding.
 */

import { UpstreamAttemptError } from "./attempt.ts";

/**
 * One event of an upstream stream in framing-neutral terms: the event's name where the framing
 * has one (SSE's `event:`), and its data, the JSON text of one chunk of the provider's format.
 */
export interface UpstreamEvent {
  event?: string;
  id?: string;
  data: string;
}

/** The events of one upstream body. */
export interface UpstreamEvents {
  /** The next event, or done at the end of the body (an unfinished last event is dropped). */
  read(): Promise<ReadableStreamReadResult<UpstreamEvent>>;
  /**
   * The next event already parsed from what the upstream has sent, without reading more; undefined
   * when none is. Lets the pump send every event of one upstream read as one chunk.
   */
  take(): UpstreamEvent | undefined;
  /** Stops reading and cancels the body. */
  cancel(reason?: unknown): Promise<void>;
}

/** How a stream's bytes are cut into events: a parser that `emit`s each whole event. */
export interface StreamFraming {
  /** Parses one chunk of the body, emitting the events it completes. */
  feed(chunk: Uint8Array, emit: (event: UpstreamEvent) => void): void;
  /** The body ended: emits what a whole last event left (an unfinished one is dropped). */
  end(emit: (event: UpstreamEvent) => void): void;
  /** Drops what the framing holds (the stream was given up). */
  reset?(): void;
}

/** The largest event read when the caller sets none (GATEWAY_UPSTREAM_EVENT_MAX_MB's default). */
export const DEFAULT_MAX_EVENT_BYTES = 8 * 1024 * 1024;

/** The buffer each read fills: a fetch body's default reads hold 64 KiB per waiting stream. */
const READ_BYTES = 4096;

const DONE: ReadableStreamReadDoneResult<never> = Object.freeze({ done: true, value: undefined });

class FramedEventReader implements UpstreamEvents {
  #byob?: ReadableStreamBYOBReader;
  #plain?: ReadableStreamDefaultReader<Uint8Array>;
  #buffer?: Uint8Array<ArrayBuffer>;
  #queue: UpstreamEvent[] = [];
  #emit: (event: UpstreamEvent) => void;
  #framing: StreamFraming;
  #ended = false;
  #maxEventBytes: number;
  /** Bytes fed to the framing since it last gave an event: what it may be holding. */
  #pendingBytes = 0;

  constructor(body: ReadableStream<Uint8Array>, framing: StreamFraming, maxEventBytes: number) {
    this.#maxEventBytes = maxEventBytes;
    this.#framing = framing;
    try {
      this.#byob = body.getReader({ mode: "byob" });
      this.#buffer = new Uint8Array(READ_BYTES);
    } catch {
      this.#plain = body.getReader();
    }
    const queue = this.#queue;
    this.#emit = (event) => queue.push(event);
  }

  async read(): Promise<ReadableStreamReadResult<UpstreamEvent>> {
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
        this.#framing.end(this.#emit);
      } else {
        const queued = this.#queue.length;
        this.#framing.feed(chunk, this.#emit);
        // An event ended inside this chunk: what follows it is less than the chunk, so counted
        // from zero the cap holds to within one read.
        this.#pendingBytes = this.#queue.length > queued ? 0 : this.#pendingBytes + chunk.length;
        if (this.#pendingBytes > this.#maxEventBytes) await this.#tooLarge();
      }
    }
    return { done: false, value: this.#queue.shift()! };
  }

  /** Stops at an event over the cap: the framing would hold all of it. */
  async #tooLarge(): Promise<never> {
    this.#ended = true;
    this.#queue.length = 0;
    this.#framing.reset?.();
    await (this.#byob ?? this.#plain!).cancel().catch(() => {});
    throw new UpstreamAttemptError(
      `too_large: an event of the upstream's stream is larger than ${this.#maxEventBytes} bytes`,
      { retryable: true, errorClass: "too_large" },
    );
  }

  take(): UpstreamEvent | undefined {
    return this.#queue.shift();
  }

  cancel(reason?: unknown): Promise<void> {
    this.#ended = true;
    this.#queue.length = 0;
    return (this.#byob ?? this.#plain!).cancel(reason);
  }
}

/**
 * Reads `body` as events cut by `framing`. An event longer than `maxEventBytes` (counted in bytes
 * received since the event before it, to within one read) makes `read()` throw `too_large`,
 * having cancelled the body: the stream is broken, never buffered whole.
 */
export function framedEvents(
  body: ReadableStream<Uint8Array>,
  framing: StreamFraming,
  { maxEventBytes = DEFAULT_MAX_EVENT_BYTES }: { maxEventBytes?: number } = {},
): UpstreamEvents {
  return new FramedEventReader(body, framing, maxEventBytes);
}
