import { assertEquals } from "../../helpers/assert.ts";
import { withModelRenamed } from "../../../core/embeddings/pass_through.ts";

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
