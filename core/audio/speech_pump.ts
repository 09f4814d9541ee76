/**
 * Relays an upstream's audio bytes to the client as they arrive, one upstream chunk per client
 * pull (nothing is buffered beyond the chunk in hand), and reports once how it ended and whether
 * any byte reached the client. An upstream that breaks or goes silent mid-body ends the client's
 * body with an error: the connection is cut without the body's end, so the client sees a broken
 * download rather than a short file that looks whole.
 */

import type { UpstreamCall } from "../upstream/attempt.ts";
import { Deadline } from "../util/deadline.ts";
import { streamEnded, streamOpened } from "../upstream/open_streams.ts";

/** How the relay ended. */
export type SpeechOutcome =
  | "completed"
  | "client_disconnect"
  | "upstream_error"
  | "upstream_idle_timeout"
  /** Still relaying when a graceful stop's deadline came: cut by the gateway. */
  | "gateway_shutdown";

export interface SpeechUpstream {
  /** The first non-empty chunk, read while the channel was chosen. */
  first: Uint8Array;
  reader: ReadableStreamDefaultReader<Uint8Array>;
  /** The call, its deadline already switched to the stream's idle time. */
  call: UpstreamCall;
}

/** Called once when the relay ends: how, and whether the client was sent any byte. */
export type SpeechFinish = (end: { outcome: SpeechOutcome; sentBytes: number }) => void;

class SpeechPump {
  readonly stream: ReadableStream<Uint8Array>;
  #upstream: SpeechUpstream;
  #finish: SpeechFinish;
  #pending: Uint8Array | undefined;
  #sentBytes = 0;
  #ended = false;
  #idle = false;
  #idleMs: number;
  #idleDeadline: Deadline;

  constructor(upstream: SpeechUpstream, finish: SpeechFinish, clientSignal?: AbortSignal) {
    this.#upstream = upstream;
    this.#finish = finish;
    this.#pending = upstream.first;
    this.#idleMs = upstream.call.timeoutMs;
    upstream.call.done();
    this.#idleDeadline = new Deadline(this.#idleMs, this.#onIdle);
    this.#idleDeadline.stop();
    this.stream = new ReadableStream<Uint8Array>(this, { highWaterMark: 0 });
    streamOpened(this);
    // A client gone before its body was ever pulled may never cancel it: end the relay anyway.
    clientSignal?.addEventListener("abort", () => this.cancel(), { once: true });
  }

  #controller?: ReadableStreamDefaultController<Uint8Array>;

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
  }

  #onIdle = () => {
    if (this.#ended) return;
    this.#idle = true;
    this.#upstream.call.timedOut = true;
    this.#upstream.call.abort();
    this.#upstream.reader.cancel().catch(() => {});
  };

  #end(outcome: SpeechOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    streamEnded(this);
    this.#idleDeadline.stop();
    this.#upstream.call.done();
    this.#finish({ outcome, sentBytes: this.#sentBytes });
  }

  #send(controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array): void {
    this.#sentBytes += chunk.length;
    controller.enqueue(chunk);
  }

  #cut(
    controller: ReadableStreamDefaultController<Uint8Array>,
    outcome: SpeechOutcome,
    why: string,
  ): void {
    this.#end(outcome);
    controller.error(new Error(why));
  }

  async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const pending = this.#pending;
    if (pending) {
      this.#pending = undefined;
      return this.#send(controller, pending);
    }
    try {
      while (true) {
        this.#idleDeadline.touch();
        const next = await this.#upstream.reader.read();
        this.#idleDeadline.stop();
        if (this.#ended) return;
        if (this.#idle) break;
        if (next.done) {
          this.#end("completed");
          return controller.close();
        }
        if (next.value.length) return this.#send(controller, next.value);
      }
    } catch (error) {
      this.#idleDeadline.stop();
      if (this.#ended) return;
      if (!this.#idle) {
        if (this.#upstream.call.clientAborted) return this.#end("client_disconnect");
        return this.#cut(
          controller,
          "upstream_error",
          `The upstream's audio broke off: ${error instanceof Error ? error.message : error}`,
        );
      }
    }
    this.#cut(
      controller,
      "upstream_idle_timeout",
      `The upstream sent nothing for ${this.#idleMs} ms`,
    );
  }

  /**
   * Ends the relay now (a graceful stop's deadline, open_streams.ts): the client's body ends with
   * an error, a broken download rather than a short file that looks whole.
   */
  cut(): void {
    if (this.#ended) return;
    this.#upstream.call.abort();
    this.#upstream.reader.cancel().catch(() => {});
    this.#end("gateway_shutdown");
    try {
      this.#controller?.error(new Error("The gateway is shutting down"));
    } catch {
      // closed meanwhile
    }
  }

  cancel(): void {
    if (this.#ended) return;
    this.#upstream.call.abort();
    this.#upstream.reader.cancel().catch(() => {});
    this.#end("client_disconnect");
  }
}

/**
 * The client's body: `upstream`'s audio bytes as they come; `finish` hears how it ended. The
 * relay also ends when `clientSignal` aborts (the client went away).
 */
export function pumpSpeech(
  upstream: SpeechUpstream,
  finish: SpeechFinish,
  clientSignal?: AbortSignal,
): ReadableStream<Uint8Array> {
  return new SpeechPump(upstream, finish, clientSignal).stream;
}
