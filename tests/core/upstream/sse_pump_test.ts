import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { pumpSse, type StreamOutcome } from "../../../core/upstream/sse_pump.ts";
import { sseEvents } from "../../../core/upstream/sse_events.ts";
import { UpstreamCall } from "../../../core/upstream/attempt.ts";

const encoder = new TextEncoder();

/** An upstream body that sends `events` and then stays silent (or ends, with `end`). */
function upstreamBody(events: string[], { end = false } = {}): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < events.length) controller.enqueue(encoder.encode(`data: ${events[next++]}\n\n`));
      else if (end) controller.close();
      else return new Promise(() => {});
    },
  });
}

async function pumped(body: ReadableStream<Uint8Array>, idleMs: number) {
  const call = new UpstreamCall(idleMs, new AbortController().signal);
  const events = sseEvents(body);
  const first = await events.read();
  const outcomes: StreamOutcome[] = [];
  const stream = pumpSse({ first: first.value!, events, call }, {
    frame: (event) => `data: ${event.data}\n\n`,
    completed: () => true,
    errorFrame: (message, code) =>
      `data: {"error":${JSON.stringify(message)},"code":${JSON.stringify(code)}}\n\n`,
    finish: (outcome) => outcomes.push(outcome),
  });
  return { stream, outcomes, call };
}

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

Deno.test("pumpSse() relays every event and reports completed once at the end", async () => {
  const { stream, outcomes } = await pumped(upstreamBody(["a", "b", "c"], { end: true }), 5_000);
  assertEquals(await readText(stream), "data: a\n\ndata: b\n\ndata: c\n\n");
  assertEquals(outcomes, ["completed"]);
});

Deno.test("pumpSse() ends a read that waits longer than the idle time with the error frame, coded upstream_timeout", async () => {
  const { stream, outcomes, call } = await pumped(upstreamBody(["a", "b"]), 50);
  const text = await readText(stream);
  assertOk(text.startsWith("data: a\n\ndata: b\n\n"));
  assertOk(text.includes("The upstream sent nothing for 50 ms"));
  assertOk(text.includes('"code":"upstream_timeout"'), text);
  assertEquals(outcomes, ["upstream_idle_timeout"]);
  assertOk(call.timedOut);
});

Deno.test("pumpSse() does not count time the client spends not reading as upstream silence", async () => {
  const { stream, outcomes } = await pumped(upstreamBody(["a", "b"], { end: true }), 50);
  const reader = stream.getReader();
  assertEquals(new TextDecoder().decode((await reader.read()).value), "data: a\n\n");
  // The client pauses for several idle periods before it reads on.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assertEquals(new TextDecoder().decode((await reader.read()).value), "data: b\n\n");
  assertOk((await reader.read()).done);
  assertEquals(outcomes, ["completed"]);
});

Deno.test("pumpSse() reports a client that leaves as client_disconnect, once", async () => {
  const { stream, outcomes, call } = await pumped(upstreamBody(["a"]), 5_000);
  const reader = stream.getReader();
  await reader.read();
  await reader.cancel();
  assertEquals(outcomes, ["client_disconnect"]);
  assertOk(call.signal.aborted);
});

Deno.test("pumpSse() sends the events of one upstream read as one chunk, and waits for no more", async () => {
  // One upstream read carries three events; the body then stays open and silent.
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return new Promise(() => {});
      sent = true;
      controller.enqueue(encoder.encode("data: a\n\ndata: b\n\ndata: c\n\n"));
    },
  });
  const { stream, outcomes } = await pumped(body, 5_000);
  const reader = stream.getReader();
  assertEquals(
    new TextDecoder().decode((await reader.read()).value),
    "data: a\n\ndata: b\n\ndata: c\n\n",
  );
  await reader.cancel();
  assertEquals(outcomes, ["client_disconnect"]);
});

Deno.test("pumpSse() ends a connection that breaks after the answer's end as completed, before it as upstream_error", async () => {
  for (
    const [events, outcome] of [[["a", "end"], "completed"], [
      ["a", "usage"],
      "upstream_error",
    ]] as const
  ) {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next < events.length) controller.enqueue(encoder.encode(`data: ${events[next++]}\n\n`));
        else controller.error(new Error("connection reset"));
      },
    });
    const call = new UpstreamCall(5_000, new AbortController().signal);
    const upstream = sseEvents(body);
    const first = await upstream.read();
    const outcomes: StreamOutcome[] = [];
    let ended = false;
    const stream = pumpSse({ first: first.value!, events: upstream, call }, {
      frame: (event) => {
        if (event.data === "end") ended = true;
        return `data: ${event.data}\n\n`;
      },
      completed: () => ended,
      errorFrame: (_message, code) => `data: broken ${code}\n\n`,
      endFrame: () => "data: closed\n\n",
      finish: (outcome) => outcomes.push(outcome),
    });
    const text = await readText(stream);
    assertEquals(outcomes, [outcome]);
    assertOk(
      text.endsWith(
        outcome === "completed"
          ? "data: closed\n\n"
          : "data: broken upstream_stream_interrupted\n\n",
      ),
      text,
    );
  }
});
