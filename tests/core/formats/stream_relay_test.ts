import { assertEquals } from "../../helpers/assert.ts";
import { OpenAIChatStreamRelay } from "../../../core/formats/openai_chat/stream_relay.ts";

const chunk = (fields: Record<string, unknown>) =>
  JSON.stringify({ id: "c", model: "up", ...fields });

Deno.test("OpenAIChatStreamRelay hides the usage the gateway asked for from a client that did not", () => {
  const relay = new OpenAIChatStreamRelay({
    clientWantsUsage: false,
    upstreamModel: "up",
    publicModel: "up",
  });
  const out = relay.relay(
    chunk({ choices: [{ index: 0, delta: { content: "hi" } }], usage: null }),
  );
  assertEquals(JSON.parse(out!).usage, undefined);
  const usageOnly = chunk({
    choices: [],
    usage: { prompt_tokens: 3, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 2 } },
  });
  assertEquals(relay.relay(usageOnly), null);
  assertEquals(relay.usage, { input_tokens: 3, cached_input_tokens: 2, output_tokens: 1 });
  assertEquals(relay.relay("[DONE]"), "[DONE]");
  assertEquals(relay.completed, true);
});

Deno.test("OpenAIChatStreamRelay passes usage through untouched when the client asked for it", () => {
  const relay = new OpenAIChatStreamRelay({
    clientWantsUsage: true,
    upstreamModel: "up",
    publicModel: "up",
  });
  const usageOnly = chunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } });
  assertEquals(relay.relay(usageOnly), usageOnly);
});

Deno.test("OpenAIChatStreamRelay reads usage sent on a chunk that also has choices (LiteLLM #36168)", () => {
  const relay = new OpenAIChatStreamRelay({
    clientWantsUsage: false,
    upstreamModel: "up",
    publicModel: "up",
  });
  const out = relay.relay(chunk({
    choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 7 },
  }));
  assertEquals(JSON.parse(out!).choices[0].finish_reason, "stop");
  assertEquals(relay.usage?.output_tokens, 7);
});

Deno.test("OpenAIChatStreamRelay renames the upstream model to the public one", () => {
  const relay = new OpenAIChatStreamRelay({
    clientWantsUsage: true,
    upstreamModel: "up",
    publicModel: "pub",
  });
  assertEquals(JSON.parse(relay.relay(chunk({ choices: [] }))!).model, "pub");
});

Deno.test("OpenAIChatStreamRelay counts content and tool-call argument characters", () => {
  const relay = new OpenAIChatStreamRelay({
    clientWantsUsage: true,
    upstreamModel: "up",
    publicModel: "up",
  });
  relay.relay(chunk({ choices: [{ index: 0, delta: { content: "abcd" } }] }));
  relay.relay(
    chunk({
      choices: [{
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { name: "f", arguments: "{}" } }] },
      }],
    }),
  );
  assertEquals(relay.outputChars, 6, "tool arguments, not the name");
  assertEquals(relay.completed, false);
});

Deno.test("OpenAIChatStreamRelay cuts OpenAI's trailing usage:null out of the text, else re-serialises", () => {
  const relay = new OpenAIChatStreamRelay({
    clientWantsUsage: false,
    upstreamModel: "up",
    publicModel: "up",
  });
  // As OpenAI writes every chunk of a stream that asked for usage: the text is kept, less the member.
  const openai =
    '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\\"usage\\":null}"}}],"usage":null}';
  assertEquals(
    relay.relay(openai),
    '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\\"usage\\":null}"}}]}',
  );
  // Other layouts: parsed, the member deleted, serialised again.
  assertEquals(relay.relay('{"usage":null,"id":"c","choices":[]}'), '{"id":"c","choices":[]}');
  assertEquals(
    relay.relay('{"id":"c", "choices":[], "usage": null}'),
    '{"id":"c","choices":[]}',
  );
  assertEquals(
    relay.relay('{"id":"c","meta":{"usage":1},"choices":[],"usage":null}'),
    '{"id":"c","meta":{"usage":1},"choices":[]}',
  );
  assertEquals(relay.outputChars, '"usage":null}'.length);
});

Deno.test("OpenAIChatStreamRelay: usage alone is not the end of a stream; a finish reason then usage is", () => {
  const relay = new OpenAIChatStreamRelay({
    clientWantsUsage: true,
    upstreamModel: "up",
    publicModel: "up",
  });
  relay.relay(chunk({ choices: [{ index: 0, delta: { content: "Echo: hi" } }] }));
  relay.relay(chunk({ choices: [], usage: { prompt_tokens: 90, completion_tokens: 50 } }));
  assertEquals(relay.completed, false, "a stream may still break after an early usage chunk");
  relay.relay(chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
  relay.relay(chunk({ choices: [], usage: { prompt_tokens: 90, completion_tokens: 50 } }));
  assertEquals(relay.completed, true, "an upstream that leaves out [DONE]");
});
