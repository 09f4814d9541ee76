/**
 * Pumps an upstream SSE stream to the client one event at a time, without buffering, and reports
 * exactly once how it ended: completed, client_disconnect, upstream_error or upstream_idle_timeout.
 */

import type { UpstreamCall } from "./attempt.ts";
import type { UpstreamEvent, UpstreamEvents } from "./upstream_events.ts";
import { Deadline } from "../util/deadline.ts";
import { streamEnded, streamOpened } from "./open_streams.ts";

/**
 * How a stream ended. `upstream_idle_timeout`: the upstream went silent for longer than the
 * channel's `stream_idle_ms`; the stream is closed with the format's error event and what was
 * delivered is billed.
 */
export type StreamOutcome =
  | "completed"
  | "client_disconnect"
  | "upstream_error"
  | "upstream_idle_timeout"
  /** Still open when a graceful stop's deadline came: ended by the gateway, billed for what came. */
  | "gateway_shutdown";

/**
 * The gateway's code for why it ended a stream with an error frame, which each format's stream
 * error encoder names in its own terms: `upstream_timeout` when the upstream went silent longer
 * than `stream_idle_ms`, `upstream_stream_interrupted` when the stream broke or ended unfinished.
 */
export type StreamFailureCode = "upstream_stream_interrupted" | "upstream_timeout";

export interface SsePumpHandlers {
  /** The frame to send for one upstream event, or null to send nothing. */
  frame(event: UpstreamEvent): string | null;
  /** Whether the upstream stream reached its normal end. */
  completed(): boolean;
  /** The frame that tells the client the upstream failed mid-stream, and why (`code`). */
  errorFrame(message: string, code: StreamFailureCode): string;
  /** Frames that close a completed stream (a converted format's last events). */
  endFrame?(): string;
  /** Called once when the stream ends, however it ends. */
  finish(outcome: StreamOutcome): void;
}

const encoder = new TextEncoder();

/**
 * The pump of one stream: a pull-based ReadableStream over the upstream events, with one idle
 * deadline per stream (armed while a read waits, on the process's shared timer) and no closure
 * per chunk.
 */
class SsePump {
  readonly stream: ReadableStream<Uint8Array>;
  #events: UpstreamEvents;
  #call: UpstreamCall;
  #handlers: SsePumpHandlers;
  #idleMs: number;
  #pendingFirst: UpstreamEvent | undefined;
  #ended = false;
  #idle = false;
  /** Armed while a read of the upstream waits (not while the client is not pulling). */
  #idleDeadline: Deadline;

  constructor(
    upstream: { first: UpstreamEvent; events: UpstreamEvents; call: UpstreamCall },
    handlers: SsePumpHandlers,
  ) {
    this.#events = upstream.events;
    this.#call = upstream.call;
    this.#handlers = handlers;
    this.#pendingFirst = upstream.first;
    // The pump owns the idle deadline from here: a read that waits longer than the call's
    // timeout ends the stream itself, whatever the abort does inside the body read.
    this.#idleMs = upstream.call.timeoutMs;
    upstream.call.done();
    this.#idleDeadline = new Deadline(this.#idleMs, this.#onIdle);
    this.#idleDeadline.stop();
    this.stream = new ReadableStream<Uint8Array>(this, { highWaterMark: 0 });
    streamOpened(this);
  }

  #controller?: ReadableStreamDefaultController<Uint8Array>;

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
  }

  /** Ends the stream now, billed for what came (a graceful stop's deadline: open_streams.ts). */
  cut(): void {
    if (this.#ended) return;
    this.#call.abort();
    this.#events.cancel().catch(() => {});
    this.#end("gateway_shutdown");
    try {
      this.#controller?.close();
    } catch {
      // closed meanwhile
    }
  }

  #onIdle = () => {
    if (this.#ended) return;
    // The read under way resolves (cancelled) or rejects (aborted); pull() ends the stream.
    this.#idle = true;
    this.#call.timedOut = true;
    this.#call.abort();
    this.#events.cancel().catch(() => {});
  };

  #end(outcome: StreamOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    streamEnded(this);
    this.#idleDeadline.stop();
    this.#call.done();
    this.#handlers.finish(outcome);
  }

  #send(controller: ReadableStreamDefaultController<Uint8Array>, frame: string): void {
    if (frame) controller.enqueue(encoder.encode(frame));
  }

  /** Ends a completed stream with the format's closing frames. */
  #complete(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#send(controller, this.#handlers.endFrame?.() ?? "");
    this.#end("completed");
    controller.close();
  }

  /** Ends the stream with the format's error frame. */
  #fail(
    controller: ReadableStreamDefaultController<Uint8Array>,
    outcome: StreamOutcome,
    message: string,
  ): void {
    const code = outcome === "upstream_idle_timeout"
      ? "upstream_timeout"
      : "upstream_stream_interrupted";
    this.#send(controller, this.#handlers.errorFrame(message, code));
    this.#end(outcome);
    controller.close();
  }

  async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const handlers = this.#handlers;
    try {
      while (true) {
        let event = this.#pendingFirst;
        this.#pendingFirst = undefined;
        if (!event) {
          this.#idleDeadline.touch();
          const next = await this.#events.read();
          this.#idleDeadline.stop();
          if (this.#idle) return this.#idleEnd(controller);
          if (this.#ended) return;
          if (next.done) {
            if (!handlers.completed()) {
              return this.#fail(
                controller,
                "upstream_error",
                "The upstream ended the stream before it was complete",
              );
            }
            return this.#complete(controller);
          }
          event = next.value;
        }
        const frame = handlers.frame(event);
        if (frame !== null) {
          this.#sendWithParsed(controller, frame);
          return;
        }
      }
    } catch (error) {
      this.#idleDeadline.stop();
      if (this.#idle) return this.#idleEnd(controller);
      if (this.#ended) return;
      if (this.#call.clientAborted) {
        this.#end("client_disconnect");
        return;
      }
      // The upstream reached its answer's end before the connection broke: the answer is whole.
      if (handlers.completed()) return this.#complete(controller);
      this.#fail(
        controller,
        "upstream_error",
        `The upstream stream failed: ${error instanceof Error ? error.message : error}`,
      );
    }
  }

  /**
   * Sends `frame` together with the frames of the events already parsed from the same upstream
   * read, as one chunk: waiting for nothing, but one write to the client (and one pull, one
   * encode) per upstream read rather than per event.
   */
  #sendWithParsed(controller: ReadableStreamDefaultController<Uint8Array>, frame: string): void {
    let out = frame;
    try {
      for (let event = this.#events.take(); event; event = this.#events.take()) {
        const next = this.#handlers.frame(event);
        if (next !== null) out += next;
      }
    } finally {
      controller.enqueue(encoder.encode(out));
    }
  }

  #idleEnd(controller: ReadableStreamDefaultController<Uint8Array>): void {
    if (this.#ended) return;
    this.#fail(
      controller,
      "upstream_idle_timeout",
      `The upstream sent nothing for ${this.#idleMs} ms; the stream was ended`,
    );
  }

  cancel(): void {
    this.#call.abort();
    this.#events.cancel().catch(() => {});
    this.#end("client_disconnect");
  }
}

/**
 * The client-facing stream. `first` is the event already read while choosing the channel;
 * `events` yields the rest.
 */
export function pumpSse(
  upstream: {
    first: UpstreamEvent;
    events: UpstreamEvents;
    call: UpstreamCall;
  },
  handlers: SsePumpHandlers,
): ReadableStream<Uint8Array> {
  return new SsePump(upstream, handlers).stream;
}
