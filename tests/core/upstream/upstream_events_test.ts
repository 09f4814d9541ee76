import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  framedEvents,
  type StreamFraming,
  type UpstreamEvent,
} from "../../../core/upstream/upstream_events.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

/** One event per `;`-ended piece: a framing that is not SSE. */
class SemicolonFraming implements StreamFraming {
  #held = "";
  feed(chunk: Uint8Array, emit: (event: UpstreamEvent) => void): void {
    const pieces = (this.#held + new TextDecoder().decode(chunk)).split(";");
    this.#held = pieces.pop()!;
    for (const piece of pieces) emit({ data: piece });
  }
  end(): void {
    this.#held = "";
  }
}

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const queue = chunks.map((chunk) => new TextEncoder().encode(chunk));
  return new ReadableStream({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

Deno.test("framedEvents() cuts a body into events by the framing it is given", async () => {
  const events = framedEvents(body(["a;b", "c;", "d"]), new SemicolonFraming());
  const seen: string[] = [];
  for (let next = await events.read(); !next.done; next = await events.read()) {
    seen.push(next.value.data);
  }
  assertEquals(seen, ["a", "bc"]);
});

Deno.test("framedEvents() holds every framing to maxEventBytes", async () => {
  const events = framedEvents(
    body(["a;", "x".repeat(40), "x".repeat(40), ";"]),
    new SemicolonFraming(),
    {
      maxEventBytes: 64,
    },
  );
  assertEquals((await events.read()).value?.data, "a");
  const error = await events.read().then(() => undefined, (thrown) => thrown);
  assertOk(
    error instanceof UpstreamAttemptError && error.errorClass === "too_large",
    String(error),
  );
});
