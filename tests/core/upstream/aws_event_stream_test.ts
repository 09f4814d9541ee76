import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  AwsEventStreamFraming,
  encodeAwsEventMessage,
} from "../../../core/upstream/aws_event_stream.ts";
import { framedEvents, type UpstreamEvent } from "../../../core/upstream/upstream_events.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

const text = (message: string) => new TextEncoder().encode(message);

function frame(body: string, eventType = "chunk"): Uint8Array {
  return encodeAwsEventMessage({
    headers: {
      ":message-type": "event",
      ":event-type": eventType,
      ":content-type": "application/json",
    },
    body: text(body),
  });
}

/** A body delivering `bytes` in pieces of `size`. */
function body(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

function joined(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const asEvent = (message: { headers: Record<string, string>; body: Uint8Array }) => ({
  event: message.headers[":event-type"],
  data: new TextDecoder().decode(message.body),
});

async function all(events: ReturnType<typeof framedEvents>): Promise<UpstreamEvent[]> {
  const out: UpstreamEvent[] = [];
  for (let next = await events.read(); !next.done; next = await events.read()) {
    out.push(next.value);
  }
  return out;
}

Deno.test("AWS event stream: messages split anywhere across reads come out whole, in order", async () => {
  const bytes = joined(frame('{"a":1}'), frame('{"b":2}', "other"), frame('{"c":3}'));
  for (const size of [1, 3, 7, 40, bytes.length]) {
    const events = framedEvents(body(bytes, size), new AwsEventStreamFraming(asEvent));
    assertEquals(await all(events), [
      { event: "chunk", data: '{"a":1}' },
      { event: "other", data: '{"b":2}' },
      { event: "chunk", data: '{"c":3}' },
    ], `pieces of ${size}`);
  }
});

Deno.test("AWS event stream: a message that fails its checksum breaks the stream", async () => {
  const bad = frame('{"a":1}');
  bad[bad.length - 3] ^= 0xff;
  const events = framedEvents(
    body(joined(frame("{}"), bad), 5),
    new AwsEventStreamFraming(asEvent),
  );
  assertEquals((await events.read()).value, { event: "chunk", data: "{}" });
  const error = await events.read().catch((error) => error);
  assertOk(error instanceof UpstreamAttemptError);
  assertOk(error.message.includes("checksum"));
});

Deno.test("AWS event stream: an unfinished last message is dropped; an oversized one is too_large", async () => {
  const whole = frame('{"a":1}');
  const cut = joined(frame("{}"), whole.slice(0, whole.length - 4));
  assertEquals(
    await all(framedEvents(body(cut, 4), new AwsEventStreamFraming(asEvent))),
    [{ event: "chunk", data: "{}" }],
  );
  const big = frame(JSON.stringify({ text: "x".repeat(5000) }));
  const events = framedEvents(body(big, 100), new AwsEventStreamFraming(asEvent), {
    maxEventBytes: 1000,
  });
  const error = await events.read().catch((error) => error);
  assertOk(error instanceof UpstreamAttemptError);
  assertEquals(error.errorClass, "too_large");
});
