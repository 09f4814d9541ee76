/**
 * Pumps an upstream SSE stream to the client one event at a time, without buffering, and reports
 * exactly once how it ended: completed, client_disconnect, or upstream_error.
 */

import type { EventSourceMessage } from "eventsource-parser";
import type { UpstreamCall } from "./attempt.ts";
import type { SseEvents } from "./sse_events.ts";

/**
 * How a stream ended. `upstream_idle_timeout`: the upstream went silent for longer than the
 * channel's `stream_idle_ms`; the stream is closed with the format's error event and what was
 * delivered is billed.
 */
export type StreamOutcome =
  | "completed"
  | "client_disconnect"
  | "upstream_error"
  | "upstream_idle_timeout";

export interface SsePumpHandlers {
  /** The frame to send for one upstream event, or null to send nothing. */
  frame(event: EventSourceMessage): string | null;
  /** Whether the upstream stream reached its normal end. */
  completed(): boolean;
  /** The frame that tells the client the upstream failed mid-stream. */
  errorFrame(message: string): string;
  /** Frames that close a completed stream (a converted format's last events). */
  endFrame?(): string;
  /** Called once when the stream ends, however it ends. */
  finish(outcome: StreamOutcome): void;
}

const encoder = new TextEncoder();

const IDLE = Symbol("idle");

/** The next event, or IDLE when none comes within `ms`. */
async function readWithin(
  reader: SseEvents,
  ms: number,
): Promise<ReadableStreamReadResult<EventSourceMessage> | typeof IDLE> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      reader.read(),
      new Promise<typeof IDLE>((resolve) => timer = setTimeout(() => resolve(IDLE), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The client-facing stream. `first` is the event already read while choosing the channel;
 * `events` yields the rest.
 */
export function pumpSse(
  upstream: {
    first: EventSourceMessage;
    events: SseEvents;
    call: UpstreamCall;
  },
  handlers: SsePumpHandlers,
): ReadableStream<Uint8Array> {
  const { first, events, call } = upstream;
  // The pump owns the idle deadline from here: a read that waits longer than the call's
  // timeout ends the stream itself, whatever the abort does inside the parser pipeline.
  const idleMs = call.timeoutMs;
  call.done();
  let ended = false;
  let pendingFirst: EventSourceMessage | undefined = first;
  const end = (outcome: StreamOutcome) => {
    if (ended) return;
    ended = true;
    call.done();
    handlers.finish(outcome);
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        while (true) {
          let event = pendingFirst;
          pendingFirst = undefined;
          if (!event) {
            const next = await readWithin(events, idleMs);
            if (ended) return;
            if (next === IDLE) {
              call.timedOut = true;
              call.abort();
              events.cancel().catch(() => {});
              const frame = handlers.errorFrame(
                `The upstream sent nothing for ${idleMs} ms; the stream was ended`,
              );
              if (frame) controller.enqueue(encoder.encode(frame));
              end("upstream_idle_timeout");
              controller.close();
              return;
            }
            if (next.done) {
              if (handlers.completed()) {
                const last = handlers.endFrame?.();
                if (last) controller.enqueue(encoder.encode(last));
                end("completed");
              } else {
                const frame = handlers.errorFrame(
                  "The upstream ended the stream before it was complete",
                );
                if (frame) controller.enqueue(encoder.encode(frame));
                end("upstream_error");
              }
              controller.close();
              return;
            }
            event = next.value;
          }
          const frame = handlers.frame(event);
          if (frame !== null) {
            controller.enqueue(encoder.encode(frame));
            return;
          }
        }
      } catch (error) {
        if (ended) return;
        if (call.clientAborted) {
          end("client_disconnect");
          return;
        }
        const frame = handlers.errorFrame(
          `The upstream stream failed: ${error instanceof Error ? error.message : error}`,
        );
        if (frame) controller.enqueue(encoder.encode(frame));
        end("upstream_error");
        controller.close();
      }
    },
    cancel() {
      call.abort();
      events.cancel().catch(() => {});
      end("client_disconnect");
    },
  }, { highWaterMark: 0 });
}
