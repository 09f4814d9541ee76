import { assertEquals } from "../../helpers/assert.ts";
import { readRerankAnswer, rerankProvider } from "../../../core/providers/rerank.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";

const call = { query: "q", documents: ["a", "b", "c"] };

Deno.test("rerank answers: Jina/vLLM usage and Cohere's billed search units are read", () => {
  assertEquals(
    readRerankAnswer(
      JSON.stringify({
        model: "m",
        usage: { total_tokens: 12 },
        results: [{ index: 2, relevance_score: 0.9, document: { text: "c" } }],
      }),
      call,
    ),
    { results: [{ index: 2, relevance_score: 0.9 }], tokens: 12 },
  );
  assertEquals(
    readRerankAnswer(
      JSON.stringify({
        id: "x",
        results: [{ index: 0, relevance_score: 0.5 }, { index: 1, relevance_score: 0.1 }],
        meta: { api_version: { version: "2" }, billed_units: { search_units: 1 } },
      }),
      call,
    ),
    {
      results: [{ index: 0, relevance_score: 0.5 }, { index: 1, relevance_score: 0.1 }],
      searchUnits: 1,
    },
  );
  // A count that is not one is not read (the estimate is billed).
  assertEquals(
    readRerankAnswer(
      JSON.stringify({ usage: { total_tokens: -3 }, results: [{ index: 0, relevance_score: 1 }] }),
      call,
    ).tokens,
    undefined,
  );
});

Deno.test("rerank answers that do not fit the call are failed attempts", () => {
  const bad = [
    "not json",
    JSON.stringify({ results: [] }),
    JSON.stringify({ results: [{ index: 3, relevance_score: 1 }] }),
    JSON.stringify({
      results: [{ index: 0, relevance_score: 1 }, { index: 0, relevance_score: 0 }],
    }),
    JSON.stringify({ data: [{ index: 0, score: 1 }] }),
  ];
  for (const text of bad) {
    let error: unknown;
    try {
      readRerankAnswer(text, call);
    } catch (thrown) {
      error = thrown;
    }
    assertEquals(error instanceof UpstreamAttemptError && error.retryable, true, text);
  }
});

Deno.test("rerank requests: the channel's path, strings, top_n only when asked", async () => {
  const channel = { base_url: "https://api.cohere.com", rerank_path: "/v2/rerank" } as Channel;
  const request = await rerankProvider.rerank!.request(
    { channel, apiKey: "k", model: "rerank-v3.5" },
    { ...call, topN: 2 },
  );
  assertEquals(request.url, "https://api.cohere.com/v2/rerank");
  assertEquals(JSON.parse(request.init.body as string), {
    model: "rerank-v3.5",
    query: "q",
    documents: ["a", "b", "c"],
    top_n: 2,
  });
  const v1 = await rerankProvider.rerank!.request(
    { channel: { base_url: "https://api.jina.ai" } as Channel, apiKey: "k", model: "m" },
    call,
  );
  assertEquals(v1.url, "https://api.jina.ai/v1/rerank");
  assertEquals("top_n" in JSON.parse(v1.init.body as string), false);
});

Deno.test("rerank errors: Jina's detail, Cohere's message, vLLM's error.message", () => {
  const read = rerankProvider.errors.read;
  assertEquals(read({ detail: "bad model" }).message, "bad model");
  assertEquals(read({ message: "invalid request" }).message, "invalid request");
  assertEquals(read({ error: { message: "nope" } }).message, "nope");
});
