/**
 * AWS's binary event stream (`application/vnd.amazon.eventstream`) as a stream framing: each
 * message is a 12-byte prelude (total length, headers length, prelude CRC), its headers, its
 * payload and a message CRC; `@smithy/eventstream-codec` checks and decodes each whole one. The
 * framing keeps the bytes of an unfinished message (the event size cap of `framedEvents` bounds
 * them) and hands each message to `toEvent`, which makes it one event of the provider's format.
 */

import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { UpstreamAttemptError } from "./attempt.ts";
import type { StreamFraming, UpstreamEvent } from "./upstream_events.ts";

/** One decoded message: its string headers (`:message-type`, `:event-type`…) and payload. */
export interface AwsEventMessage {
  headers: Record<string, string>;
  body: Uint8Array;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** The shortest message: a prelude and a message CRC, no headers, no payload. */
const MIN_MESSAGE_BYTES = 16;

/** A message's bytes as the codec writes them (for simulators and tests). */
export function encodeAwsEventMessage(message: AwsEventMessage): Uint8Array {
  const headers = Object.fromEntries(
    Object.entries(message.headers).map((
      [name, value],
    ) => [name, { type: "string" as const, value }]),
  );
  return codec.encode({ headers, body: message.body });
}

function broken(why: string): UpstreamAttemptError {
  return new UpstreamAttemptError(`bad_answer: the upstream's event stream ${why}`, {
    retryable: true,
  });
}

export class AwsEventStreamFraming implements StreamFraming {
  #held = new Uint8Array(0);
  #toEvent: (message: AwsEventMessage) => UpstreamEvent | undefined;

  constructor(toEvent: (message: AwsEventMessage) => UpstreamEvent | undefined) {
    this.#toEvent = toEvent;
  }

  feed(chunk: Uint8Array, emit: (event: UpstreamEvent) => void): void {
    let bytes = chunk;
    if (this.#held.length) {
      bytes = new Uint8Array(this.#held.length + chunk.length);
      bytes.set(this.#held);
      bytes.set(chunk, this.#held.length);
    }
    let offset = 0;
    while (bytes.length - offset >= 4) {
      const total = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0);
      if (total < MIN_MESSAGE_BYTES) throw broken("has a message shorter than its prelude");
      if (bytes.length - offset < total) break;
      const event = this.#toEvent(decodeMessage(bytes.subarray(offset, offset + total)));
      if (event) emit(event);
      offset += total;
    }
    // Copied: the reader reuses the chunk's buffer for its next read.
    this.#held = bytes.slice(offset);
  }

  /** An unfinished last message is dropped, as an unfinished SSE event is. */
  end(): void {
    this.#held = new Uint8Array(0);
  }

  reset(): void {
    this.#held = new Uint8Array(0);
  }
}

function decodeMessage(bytes: Uint8Array): AwsEventMessage {
  let decoded;
  try {
    decoded = codec.decode(bytes);
  } catch {
    throw broken("has a message that fails its checksum");
  }
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(decoded.headers)) {
    if (header.type === "string") headers[name] = header.value;
  }
  return { headers, body: decoded.body };
}
