/**
 * Recorded upstream streams (tests/fixtures/<format>/*.chunks.txt, one per provider behaviour:
 * text, tool calls with their arguments in fragments, reasoning, usage last, an in-stream error)
 * replayed through the same reading the gateway does — bytes → TextDecoderStream →
 * EventSourceParserStream → the format's `CODECS[format].streamDecoder()`, as
 * core/text/serve_text.ts reads an upstream — with the bytes cut at every offset, one byte at a
 * time, and at random cut sets. Whatever the network does to the chunking, the decoded neutral
 * events must be the same, and they must add up to what the provider said.
 *
 * Each fixture starts with SSE comment lines (`: …`) naming where its shape comes from; the
 * parser skips them like any comment an upstream sends.
 */

import { EventSourceParserStream } from "eventsource-parser/stream";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { CODECS } from "../../../core/formats/codecs.ts";
import type {
  NeutralEvent,
  NeutralUsage,
  StopReason,
  TextFormat,
} from "../../../core/formats/neutral.ts";

const FIXTURES = new URL("../../fixtures/", import.meta.url);

/** Fixture folder → the upstream format its streams are in. */
const FORMAT_OF_FOLDER: Record<string, TextFormat> = {
  openai_chat: "openai-chat",
  openai_responses: "openai-responses",
  anthropic: "anthropic",
  gemini: "gemini",
};

interface Decoded {
  events: NeutralEvent[];
  completed: boolean;
  usage: NeutralUsage | undefined;
  error: string | undefined;
}

/** Feeds `chunks` through the gateway's SSE reading and a fresh decoder of `format`. */
async function decode(format: TextFormat, chunks: Uint8Array[]): Promise<Decoded> {
  const decoder = CODECS[format].streamDecoder();
  const events: NeutralEvent[] = [];
  const frames = ReadableStream.from(chunks)
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  for await (const frame of frames) events.push(...decoder.decode(frame.event, frame.data));
  return {
    events: normalizeGeneratedIds(events),
    completed: decoder.completed,
    usage: decoder.usage,
    error: decoder.error,
  };
}

/** Ids the gateway makes up for calls sent without one (Gemini), made comparable across runs. */
function normalizeGeneratedIds(events: NeutralEvent[]): NeutralEvent[] {
  return events.map((event) =>
    event.type === "tool_call" && event.id !== undefined && /^call_[0-9A-Za-z]{20}$/.test(event.id)
      ? { ...event, id: `<generated ${event.index}>` }
      : event
  );
}

/** What the events add up to, as a client would assemble them. */
interface Summary {
  id: string;
  model: string;
  text: string;
  reasoning: string;
  signatures: string[];
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  stop?: StopReason;
  usage?: NeutralUsage;
  completed: boolean;
  error?: { message: string; code?: string };
}

function summarize(decoded: Decoded): Summary {
  const summary: Summary = {
    id: "",
    model: "",
    text: "",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    completed: decoded.completed,
  };
  for (const event of decoded.events) {
    switch (event.type) {
      case "start":
        summary.id = event.id;
        summary.model = event.model;
        break;
      case "text":
        summary.text += event.text;
        break;
      case "reasoning":
        summary.reasoning += event.text;
        break;
      case "reasoning_signature":
        summary.signatures.push(event.signature);
        break;
      case "tool_call": {
        const call = summary.toolCalls[event.index] ??= { id: "", name: "", arguments: "" };
        if (event.id !== undefined) call.id = event.id;
        if (event.name !== undefined) call.name = event.name;
        call.arguments += event.arguments;
        break;
      }
      case "stop":
        summary.stop = event.reason;
        break;
      case "usage":
        summary.usage = event.usage;
        break;
      case "error":
        summary.error = {
          message: event.message,
          ...(event.code === undefined ? {} : { code: event.code }),
        };
        break;
    }
  }
  // The decoder's own record (what the gateway bills and reports from) agrees with its events.
  if (summary.usage) assertEquals(decoded.usage, summary.usage);
  assertEquals(decoded.error, summary.error?.message);
  return summary;
}

const weather = (args: string) => ({ name: "get_weather", arguments: args });
const time = (args: string) => ({ name: "get_time", arguments: args });

/** What each fixture says, read off the provider's frames by hand. */
const EXPECTED: Record<string, Summary> = {
  "openai_chat/text": {
    id: "chatcmpl-C4rTq8PZl2Gm0yWvXk5bJ3hN",
    model: "gpt-4.1-mini-2025-04-14",
    text: "Grüße aus Köln — 東京は晴れ 🌤️.",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    stop: "stop",
    usage: { input_tokens: 24, cached_input_tokens: 0, output_tokens: 14, reasoning_tokens: 0 },
    completed: true,
  },
  "openai_chat/tool_calls": {
    id: "chatcmpl-C4rU2mAq7",
    model: "gpt-4.1-mini-2025-04-14",
    text: "",
    reasoning: "",
    signatures: [],
    toolCalls: [
      {
        id: "call_9xQe4kN2LrTz8mWc1vB7pHsY",
        ...weather('{"location": "Paris, France", "unit": "celsius"}'),
      },
      { id: "call_Hf3uY6oPq1Wn5aZr8tKdJ0eL", ...time('{"timezone": "Europe/Paris"}') },
    ],
    stop: "tool_calls",
    usage: { input_tokens: 88, cached_input_tokens: 64, output_tokens: 51, reasoning_tokens: 0 },
    completed: true,
  },
  "openai_chat/reasoning_content": {
    id: "5f2c7a9e-1b3d-4c8e-9f0a-6d4e2b1c3a5f",
    model: "deepseek-reasoner",
    text: "2 + 2 = **4**",
    reasoning: "The user asks for 2+2. That is 4.",
    signatures: [],
    toolCalls: [],
    stop: "stop",
    usage: { input_tokens: 13, cached_input_tokens: 0, output_tokens: 31, reasoning_tokens: 24 },
    completed: true,
  },
  "openai_chat/error": {
    id: "chatcmpl-C4rV0err",
    model: "gpt-4.1-mini-2025-04-14",
    text: "Once upon a time",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    completed: false,
    error: {
      message: "The server had an error while processing your request. Sorry about that!",
    },
  },
  "openai_responses/text": {
    id: "resp_68a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5",
    model: "gpt-4.1-2025-04-14",
    text: "Bonjour ! Ça va ? Voilà — 你好 👋",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    stop: "stop",
    usage: { input_tokens: 37, cached_input_tokens: 0, output_tokens: 11, reasoning_tokens: 0 },
    completed: true,
  },
  "openai_responses/reasoning_tool_calls": {
    id: "resp_68a1c0ffee0123456789abcdef012345",
    model: "gpt-5-mini-2025-08-07",
    text: "",
    reasoning:
      "**Checking weather and time**\n\nThe user wants both for Paris; I will call the two tools.",
    // Labelled with their signer (core/formats/signature.ts).
    signatures: ["gwsig1ORgAAAAABoobxDRkVjZGFzZGZhc2RmYXNkZmFzZGZhc2Rm-dq3JZ0xPb2Q9kA_h1U4iY2Fh=="],
    toolCalls: [
      {
        id: "call_Qm4tB8xR2vN6yK1pL9sD3fGh",
        ...weather('{"location":"Paris, France","unit":"celsius"}'),
      },
      { id: "call_Wz7cE5jU0aT3iO8nM2bV6xYq", ...time('{"timezone":"Europe/Paris"}') },
    ],
    stop: "tool_calls",
    usage: {
      input_tokens: 312,
      cached_input_tokens: 256,
      output_tokens: 187,
      reasoning_tokens: 128,
    },
    completed: true,
  },
  "openai_responses/error": {
    id: "resp_68a1dead0000111122223333444455556",
    model: "gpt-4.1-2025-04-14",
    text: "Partial answer",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    completed: false,
    error: {
      message: "The server had an error while processing your request. Sorry about that!",
      code: "server_error",
    },
  },
  "anthropic/text": {
    id: "msg_01XFDUDYJgAACzvnptvVoYEL",
    model: "claude-sonnet-4-5-20250929",
    text: "Hallo! Schöne Grüße nach 大阪 🎌",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    stop: "stop",
    // input_tokens excludes the cache read; the neutral count includes it.
    usage: { input_tokens: 2069, cached_input_tokens: 2048, output_tokens: 15 },
    completed: true,
  },
  "anthropic/tool_use": {
    id: "msg_014p7gG3wDgGV9EUtLvnow3U",
    model: "claude-sonnet-4-5-20250929",
    text: "Okay, let's check the weather for San Francisco, CA:",
    reasoning: "",
    signatures: [],
    toolCalls: [{
      id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      ...weather('{"location": "San Francisco, CA", "unit": "fahrenheit"}'),
    }],
    stop: "tool_calls",
    // message_delta sends output_tokens only; input comes from message_start.
    usage: { input_tokens: 472, cached_input_tokens: 0, output_tokens: 89 },
    completed: true,
  },
  "anthropic/thinking": {
    id: "msg_01Gq7rZ3nVq1kS8wYp2dLmXe",
    model: "claude-sonnet-4-5-20250929",
    text: "The greatest common divisor of 1071 and 462 is **21**.",
    reasoning: "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n" +
      "1071 = 2 × 462 + 147\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0\n" +
      "The remainder is 0, so GCD(1071, 462) = 21.",
    signatures: [
      "gwsig1ANEqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+TqyMQ8F6gnYsaDbfT0x0zq8A==",
    ],
    toolCalls: [],
    stop: "stop",
    usage: { input_tokens: 38, cached_input_tokens: 0, output_tokens: 152 },
    completed: true,
  },
  "anthropic/error": {
    id: "msg_01Kd8sWq3nE7vR2tY6uI9oPa",
    model: "claude-sonnet-4-5-20250929",
    text: "Let me think",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    completed: false,
    error: { message: "Overloaded", code: "overloaded_error" },
  },
  "gemini/text": {
    id: "0ZqPaJ-cBpvKz7IPq9-x2AQ",
    model: "gemini-2.5-flash",
    text: "Das Wetter in München ist heute sonnig — 23 °C. 日本語も大丈夫です 🌞\n",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    stop: "stop",
    usage: { input_tokens: 9, cached_input_tokens: 0, output_tokens: 17 },
    completed: true,
  },
  "gemini/thinking_function_calls": {
    id: "b3KqaL2mFf2Nz7IP0oS5kQk",
    model: "gemini-2.5-flash",
    text: "Ich schaue nach…",
    reasoning: "**Planning the tool calls**\n\n" +
      "The user wants the weather and the time in Paris. I should call both functions.",
    // The first call's thought signature, kept (it goes back on that call next turn).
    signatures: ["gwsig1GECiQB0e2Kb5VqVn1mJ3p8Vd6rXgq9cQ2oBs1d4cE7fF8gH9iJ0k="],
    // Gemini sends calls without ids; the gateway makes them up (normalized above).
    toolCalls: [
      { id: "<generated 0>", ...weather('{"location":"Paris, France","unit":"celsius"}') },
      { id: "<generated 1>", ...time('{"timezone":"Europe/Paris"}') },
    ],
    stop: "tool_calls",
    // Thoughts are output tokens next to the candidates' ones.
    usage: { input_tokens: 58, cached_input_tokens: 32, output_tokens: 253, reasoning_tokens: 212 },
    completed: true,
  },
  "gemini/error": {
    id: "x9LqaMbAAq2Nz7IPv7_6oAs",
    model: "gemini-2.5-flash",
    text: "Es war einmal ein König, der",
    reasoning: "",
    signatures: [],
    toolCalls: [],
    completed: false,
    error: { message: "The model is overloaded. Please try again later.", code: "UNAVAILABLE" },
  },
};

interface Fixture {
  name: string;
  format: TextFormat;
  bytes: Uint8Array;
}

async function loadFixtures(): Promise<Fixture[]> {
  const fixtures: Fixture[] = [];
  for (const folder of Object.keys(FORMAT_OF_FOLDER)) {
    for await (const entry of Deno.readDir(new URL(`${folder}/`, FIXTURES))) {
      if (!entry.name.endsWith(".chunks.txt")) continue;
      fixtures.push({
        name: `${folder}/${entry.name.slice(0, -".chunks.txt".length)}`,
        format: FORMAT_OF_FOLDER[folder],
        bytes: await Deno.readFile(new URL(`${folder}/${entry.name}`, FIXTURES)),
      });
    }
  }
  return fixtures.sort((a, b) => a.name.localeCompare(b.name));
}

const fixtures = await loadFixtures();

/** A UTF-8 continuation byte: a cut before it falls inside a character. */
const insideCharacter = (bytes: Uint8Array, offset: number) => (bytes[offset] & 0xc0) === 0x80;
/** A cut between the `\r` and the `\n` of a CRLF line end. */
const insideCrlf = (bytes: Uint8Array, offset: number) =>
  bytes[offset - 1] === 0x0d && bytes[offset] === 0x0a;

/** Every offset inside the file: 1 … length − 1. The fixtures are small enough for all of them. */
const everyOffset = (bytes: Uint8Array) =>
  Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);

/** A small seeded generator, so a failing random cut set can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

function cutAt(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const bounds = [0, ...offsets, bytes.length];
  return bounds.slice(1).map((end, i) => bytes.subarray(bounds[i], end));
}

Deno.test("stream fixtures: one or more per behaviour for each upstream format", () => {
  assertEquals(fixtures.map((fixture) => fixture.name), Object.keys(EXPECTED).sort());
  for (const format of Object.values(FORMAT_OF_FOLDER)) {
    const own = fixtures.filter((fixture) => fixture.format === format);
    assertOk(
      own.some((fixture) => fixture.bytes.some((_, i) => insideCharacter(fixture.bytes, i))),
      `${format}: no fixture has a multibyte character to cut inside`,
    );
    assertOk(own.some((f) => EXPECTED[f.name].error), `${format}: no in-stream error fixture`);
    assertOk(own.some((f) => EXPECTED[f.name].toolCalls.length), `${format}: no tool call fixture`);
    assertOk(own.some((f) => EXPECTED[f.name].usage), `${format}: no usage`);
  }
  const gemini = fixtures.filter((fixture) => fixture.format === "gemini");
  assertOk(
    gemini.every((fixture) => fixture.bytes.some((_, i) => insideCrlf(fixture.bytes, i))),
    "the Gemini fixtures end their frames in CRLF",
  );
});

for (const fixture of fixtures) {
  Deno.test(`stream fixture ${fixture.name}: decodes to what the provider sent`, async () => {
    const whole = await decode(fixture.format, [fixture.bytes]);
    assertEquals(summarize(whole), EXPECTED[fixture.name]);
  });

  Deno.test(
    `stream fixture ${fixture.name}: the same neutral events however the bytes are cut`,
    async () => {
      const { bytes, format, name } = fixture;
      const whole = await decode(format, [bytes]);
      // In two, at every offset: inside each multibyte character, between each \r and \n, …
      for (const offset of everyOffset(bytes)) {
        const cut = await decode(format, cutAt(bytes, [offset]));
        assertEquals(cut, whole, `${name} cut at byte ${offset}`);
      }
      const oneByOne = everyOffset(bytes);
      assertEquals(await decode(format, cutAt(bytes, oneByOne)), whole, `${name} byte by byte`);
      // … and at random sets of cuts (seeded by the size, so a failure replays).
      const next = random(bytes.length);
      for (let round = 0; round < 50; round++) {
        const count = 2 + Math.floor(next() * 40);
        const cuts = [
          ...new Set(
            Array.from({ length: count }, () => 1 + Math.floor(next() * (bytes.length - 1))),
          ),
        ].sort((a, b) => a - b);
        assertEquals(await decode(format, cutAt(bytes, cuts)), whole, `${name} cut at ${cuts}`);
      }
    },
  );
}
