import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { sseEvents } from "../../../core/upstream/sse_events.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

const encoder = new TextEncoder();

/** A body of `chunks`, as a byte stream (BYOB reads) or a plain stream. */
function body(chunks: Uint8Array[], bytes: boolean): ReadableStream<Uint8Array> {
  let next = 0;
  if (!bytes) {
    return new ReadableStream({
      pull(controller) {
        if (next < chunks.length) controller.enqueue(chunks[next++]);
        else controller.close();
      },
    });
  }
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (next < chunks.length) return controller.enqueue(chunks[next++]);
      controller.close();
      // A pending BYOB read is answered with nothing once the stream is closed.
      controller.byobRequest?.respond(0);
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>) {
  const events = sseEvents(stream);
  const out: Array<[string | undefined, string]> = [];
  for (let next = await events.read(); !next.done; next = await events.read()) {
    out.push([next.value.event, next.value.data]);
  }
  return out;
}

for (const bytes of [true, false]) {
  const kind = bytes ? "byte stream" : "plain stream";
  Deno.test(`sseEvents (${kind}): events split anywhere, multi-byte text split, big events`, async () => {
    const big = "x".repeat(10_000);
    const text =
      `event: a\ndata: héllo 😀\n\ndata: ${big}\n\n: comment\ndata: last\n\ndata: unfinished`;
    const whole = encoder.encode(text);
    // Cut every 7 bytes: splits lines, events and the multi-byte characters.
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < whole.length; at += 7) chunks.push(whole.slice(at, at + 7));
    assertEquals(await readAll(body(chunks, bytes)), [
      ["a", "héllo 😀"],
      [undefined, big],
      [undefined, "last"],
    ]);
    assertEquals(await readAll(body([whole], bytes)), [
      ["a", "héllo 😀"],
      [undefined, big],
      [undefined, "last"],
    ]);
  });

  Deno.test(`sseEvents (${kind}): cancel cancels the body and ends the reads`, async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      ...(bytes ? { type: "bytes" as const } : {}),
      pull(controller) {
        controller.enqueue(encoder.encode("data: one\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    } as UnderlyingDefaultSource<Uint8Array>);
    const events = sseEvents(stream);
    assertEquals((await events.read()).value?.data, "one");
    await events.cancel();
    assertOk(cancelled);
    assertOk((await events.read()).done);
  });
}

Deno.test("sseEvents().take() gives the events already parsed, without reading more", async () => {
  let reads = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      reads++;
      controller.enqueue(
        new TextEncoder().encode(reads === 1 ? "data: a\n\ndata: b\n\n" : "data: c\n\n"),
      );
      if (reads === 2) controller.close();
    },
  });
  const events = sseEvents(body);
  assertEquals((await events.read()).value?.data, "a");
  assertEquals(events.take()?.data, "b");
  assertEquals(events.take(), undefined);
  assertEquals((await events.read()).value?.data, "c");
  assertOk((await events.read()).done);
});

for (const bytes of [true, false]) {
  const kind = bytes ? "byte stream" : "plain stream";
  Deno.test(`sseEvents (${kind}): an event over maxEventBytes throws too_large and cancels the body`, async () => {
    const max = 16 * 1024;
    let cancelled = false;
    let sent = 0;
    // One event, then a 100 KB data line (cut off: without the cap the reads just end).
    const stream = new ReadableStream<Uint8Array>({
      ...(bytes ? { type: "bytes" as const } : {}),
      pull(controller) {
        if (sent > 100) {
          controller.close();
          (controller as ReadableByteStreamController).byobRequest?.respond(0);
          return;
        }
        const text = sent === 0 ? "data: first\n\ndata: " : "x".repeat(1000);
        controller.enqueue(encoder.encode(text));
        sent++;
      },
      cancel() {
        cancelled = true;
      },
    } as UnderlyingDefaultSource<Uint8Array>);
    const events = sseEvents(stream, { maxEventBytes: max });
    assertEquals((await events.read()).value?.data, "first");
    const error = await events.read().then(() => undefined, (error) => error);
    assertOk(error instanceof UpstreamAttemptError, String(error));
    assertEquals(error.errorClass, "too_large");
    assertOk(cancelled, "the body was cancelled");
    // The cap, one read past it, and what the body stream pulls ahead.
    assertOk(sent * 1000 <= max + 4 * 1000, `read ${sent} KB for a ${max / 1024} KiB cap`);
    assertOk((await events.read()).done);
  });

  Deno.test(`sseEvents (${kind}): many events adding up past maxEventBytes are read`, async () => {
    const event = `data: ${"y".repeat(900)}\n\n`;
    const chunks = Array.from({ length: 100 }, () => encoder.encode(event));
    const stream = body(chunks, bytes);
    const events = sseEvents(stream, { maxEventBytes: 2048 });
    let count = 0;
    for (let next = await events.read(); !next.done; next = await events.read()) count++;
    assertEquals(count, 100);
  });
}
