import { assertEquals } from "../../helpers/assert.ts";
import { withModelRenamed as renamedBytes } from "../../../core/embeddings/pass_through.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
/** The renamed answer as text, for comparing (null when none). */
function withModelRenamed(text: string, model: string): string | null {
  const renamed = renamedBytes(bytes(text), model);
  return renamed === null ? null : new TextDecoder().decode(renamed);
}

Deno.test("withModelRenamed(): the top-level model is renamed, the vectors' bytes kept", () => {
  const upstream =
    '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-2.5e-7]}],' +
    '"model" : "text-embedding-3-small","usage":{"prompt_tokens":3,"total_tokens":3}}';
  const renamed = withModelRenamed(upstream, "emb-public");
  assertEquals(
    renamed,
    '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-2.5e-7]}],' +
      '"model":"emb-public","usage":{"prompt_tokens":3,"total_tokens":3}}',
  );
  assertEquals(JSON.parse(renamed!).data[0].embedding, [0.1, -2.5e-7]);
});

Deno.test("withModelRenamed(): an escaped name is replaced whole; a name needing escapes is written escaped", () => {
  const renamed = withModelRenamed('{"data":[],"model":"a\\"b"}', 'x"y');
  assertEquals(JSON.parse(renamed!).model, 'x"y');
  assertEquals(withModelRenamed('{"data":[]}', "x"), null);
});

Deno.test("withModelRenamed(): the same bytes when the name is already the one asked", () => {
  const answer = bytes('{"data":[],"model":"emb","usage":{}}');
  assertEquals(renamedBytes(answer, "emb") === answer, true);
  assertEquals(renamedBytes(answer, "emb2") === answer, false);
});

Deno.test('withModelRenamed(): a "model" that is not a member with a string value is skipped', () => {
  assertEquals(
    withModelRenamed('{"model":"a","data":[],"x":"\\"model\\""}', "b"),
    '{"model":"b","data":[],"x":"\\"model\\""}',
  );
  assertEquals(withModelRenamed('{"model":1}', "b"), null);
});
