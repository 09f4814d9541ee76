/**
 * CPU per streamed event: a pass-through stream (same format in and out: parse for usage, rename
 * the model, frame) against a converted one (decode to neutral events, encode another format),
 * over the same upstream stream of text deltas. Run in-process, best of several rounds, so the
 * numbers are the gateway's own work per event and nothing else.
 */

import type { EventSourceMessage } from "eventsource-parser";
import { CODECS } from "../core/formats/codecs.ts";
import type { InboundFormat } from "../core/formats/neutral.ts";
import { PassThroughStream } from "../core/text/pass_through.ts";
import { OpenAIChatStreamRelay } from "../core/formats/openai_chat/stream_relay.ts";

const DELTAS = 2000;
const ROUNDS = 15;
const encoder = new TextEncoder();

/** An upstream stream of `DELTAS` text deltas in `format`, as parsed SSE events. */
function upstreamEvents(format: InboundFormat): EventSourceMessage[] {
  const event = (name: string | undefined, data: unknown): EventSourceMessage => ({
    event: name,
    data: JSON.stringify(data),
    id: undefined,
  });
  const words = Array.from({ length: DELTAS }, (_, i) => `word${i % 10} `);
  switch (format) {
    case "openai-chat": {
      const chunk = (delta: unknown, finish: string | null = null, usage?: unknown) =>
        event(undefined, {
          id: "chatcmpl-1",
          object: "chat.completion.chunk",
          created: 1,
          model: "up",
          choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
          usage: usage ?? null,
        });
      return [
        chunk({ role: "assistant", content: "" }),
        ...words.map((text) => chunk({ content: text })),
        chunk({}, "stop"),
        chunk(null, null, { prompt_tokens: 10, completion_tokens: DELTAS }),
        { event: undefined, data: "[DONE]", id: undefined },
      ];
    }
    case "anthropic":
      return [
        event("message_start", {
          type: "message_start",
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "up",
            content: [],
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        }),
        event("content_block_start", {
          type: "content_block_start",
          index: 0,
          content_block: { type: "text", text: "" },
        }),
        ...words.map((text) =>
          event("content_block_delta", {
            type: "content_block_delta",
            index: 0,
            delta: { type: "text_delta", text },
          })
        ),
        event("content_block_stop", { type: "content_block_stop", index: 0 }),
        event("message_delta", {
          type: "message_delta",
          delta: { stop_reason: "end_turn" },
          usage: { output_tokens: DELTAS },
        }),
        event("message_stop", { type: "message_stop" }),
      ];
    case "openai-responses":
      return [
        event("response.created", {
          type: "response.created",
          sequence_number: 0,
          response: { id: "resp_1", model: "up", output: [] },
        }),
        event("response.output_item.added", {
          type: "response.output_item.added",
          output_index: 0,
          item: { id: "msg_1", type: "message", content: [] },
        }),
        ...words.map((delta, i) =>
          event("response.output_text.delta", {
            type: "response.output_text.delta",
            sequence_number: i + 2,
            item_id: "msg_1",
            output_index: 0,
            content_index: 0,
            delta,
          })
        ),
        event("response.completed", {
          type: "response.completed",
          response: {
            id: "resp_1",
            status: "completed",
            usage: { input_tokens: 10, output_tokens: DELTAS },
          },
        }),
      ];
    case "gemini":
      return [
        ...words.map((text) =>
          event(undefined, {
            candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0 }],
            modelVersion: "up",
            responseId: "r",
          })
        ),
        event(undefined, {
          candidates: [{
            content: { role: "model", parts: [{ text: "" }] },
            finishReason: "STOP",
            index: 0,
          }],
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: DELTAS },
          modelVersion: "up",
          responseId: "r",
        }),
      ];
  }
}

type Relay = (event: EventSourceMessage) => string | null;

function passThrough(format: InboundFormat): { frame: Relay; end: () => string } {
  if (format === "openai-chat") {
    const relay = new OpenAIChatStreamRelay({
      clientWantsUsage: false,
      upstreamModel: "up",
      publicModel: "pub",
    });
    return {
      frame: (event) => {
        const data = relay.relay(event.data);
        return data === null ? null : `data: ${data}\n\n`;
      },
      end: () => "",
    };
  }
  const relay = new PassThroughStream({
    format,
    framing: "sse",
    upstreamModel: "up",
    publicModel: "pub",
  });
  return { frame: (event) => relay.frame(event), end: () => relay.end() };
}

function converted(from: InboundFormat, to: InboundFormat): { frame: Relay; end: () => string } {
  const decoder = CODECS[from].streamDecoder();
  const encoderOut = CODECS[to].streamEncoder("pub", { includeUsage: false, framing: "sse" });
  return {
    frame: (event) => {
      let out = "";
      for (const neutral of decoder.decode(event.event, event.data)) {
        out += encoderOut.encode(neutral);
      }
      return out || null;
    },
    end: () => encoderOut.end(),
  };
}

/** Microseconds per upstream event, best of ROUNDS. */
function timePerEvent(
  events: EventSourceMessage[],
  make: () => { frame: Relay; end: () => string },
): number {
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const relay = make();
    const started = performance.now();
    for (const event of events) {
      const frame = relay.frame(event);
      if (frame) encoder.encode(frame);
    }
    encoder.encode(relay.end());
    best = Math.min(best, performance.now() - started);
  }
  return (best * 1000) / events.length;
}

export interface StreamCpuRow {
  upstream: InboundFormat;
  client: InboundFormat;
  passThroughUs: number;
  convertedUs: number;
}

export function measureStreamCpu(): StreamCpuRow[] {
  const formats: InboundFormat[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];
  const rows: StreamCpuRow[] = [];
  for (const upstream of formats) {
    const events = upstreamEvents(upstream);
    const passThroughUs = timePerEvent(events, () => passThrough(upstream));
    for (const client of formats) {
      if (client === upstream) continue;
      rows.push({
        upstream,
        client,
        passThroughUs,
        convertedUs: timePerEvent(events, () => converted(upstream, client)),
      });
    }
  }
  return rows;
}

if (import.meta.main) {
  for (const row of measureStreamCpu()) {
    console.log(
      `${row.upstream} → ${row.client}: ${row.convertedUs.toFixed(2)} µs/event converted, ` +
        `${row.passThroughUs.toFixed(2)} pass-through, ratio ${
          (row.convertedUs / row.passThroughUs).toFixed(2)
        }`,
    );
  }
}
