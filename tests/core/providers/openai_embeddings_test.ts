import { assertEquals } from "../../helpers/assert.ts";
import {
  openAIEmbeddingProvider,
  readOpenAIEmbeddings,
  scanOpenAIEmbeddings,
} from "../../../core/providers/openai_embeddings.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";

const answer = (data: unknown, usage: unknown = { prompt_tokens: 3 }) =>
  JSON.stringify({ object: "list", data, model: "m", usage });

Deno.test("openai embeddings answer: vectors by index, numbers or base64, and the reported usage", () => {
  const read = readOpenAIEmbeddings(
    answer([{ index: 1, embedding: "AACAPw==" }, { index: 0, embedding: [0.5, 1] }]),
    2,
  );
  assertEquals(read, { vectors: [[0.5, 1], "AACAPw=="], inputTokens: 3 });
  assertEquals(readOpenAIEmbeddings(answer([{ embedding: [1] }], "x"), 1).inputTokens, undefined);
});

Deno.test("openai embeddings answer: a missing, extra or malformed vector fails the attempt (retryable)", () => {
  for (
    const text of [
      "{not json",
      "null",
      answer([]),
      answer([{ index: 0, embedding: [1] }]),
      answer([{ index: 0, embedding: [1, "2"] }, { index: 1, embedding: [1] }]),
      answer([{ index: 0, embedding: [1] }, { index: 0, embedding: [1] }]),
      answer([{ embedding: [1] }, { embedding: [1] }, { embedding: [1] }]),
    ]
  ) {
    let failure: unknown;
    try {
      readOpenAIEmbeddings(text, 2);
    } catch (error) {
      failure = error;
    }
    assertEquals(failure instanceof UpstreamAttemptError && failure.retryable, true, text);
  }
});

Deno.test("openai embeddings answer: a float answer is scanned, not parsed, to be passed on", () => {
  const text = '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,1]},' +
    '{"object":"embedding","index":1,"embedding":[2,3]}],"model":"m","usage":{"prompt_tokens":4,"total_tokens":4}}';
  const bytes = (text: string) => new TextEncoder().encode(text);
  assertEquals(scanOpenAIEmbeddings(bytes(text), 2), { inputTokens: 4, encoding: "float" });
  assertEquals(scanOpenAIEmbeddings(bytes(` ${text.replaceAll(":", " : ")}\n`), 2), {
    inputTokens: 4,
    encoding: "float",
  });
  const base64 = text.replace("[0.5,1]", '"AAAAPwAAgD8="').replace("[2,3]", '"AAAAQAAAQEA="');
  assertEquals(scanOpenAIEmbeddings(bytes(base64), 2), { inputTokens: 4, encoding: "base64" });
  assertEquals(openAIEmbeddingProvider.read(bytes(base64), 2).rawEncoding, "base64");
  const answer = openAIEmbeddingProvider.read(bytes(text), 2);
  assertEquals(new TextDecoder().decode(answer.raw), text);
  assertEquals(answer.inputTokens, 4);
  assertEquals(answer.vectors, [[0.5, 1], [2, 3]]);
  // A count that does not match, base64 strings or no usage after the vectors: parsed in full.
  assertEquals(scanOpenAIEmbeddings(bytes(text), 3), null);
  // One list and one string: not one encoding.
  assertEquals(scanOpenAIEmbeddings(bytes(text.replace("[2,3]", '"AACAPw=="')), 2), null);
  assertEquals(scanOpenAIEmbeddings(bytes(text.slice(0, -1)), 2), null);
  assertEquals(scanOpenAIEmbeddings(bytes(`${text}}`), 2), null);
  assertEquals(
    openAIEmbeddingProvider.read(bytes(text.replace("[2,3]", '"AACAPw=="')), 2).raw,
    undefined,
  );
});
