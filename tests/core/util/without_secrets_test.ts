import { assertEquals } from "../../helpers/assert.ts";
import { stableJson, withoutSecrets } from "../../../core/util/without_secrets.ts";

Deno.test("withoutSecrets() drops secret-named fields at any depth and redacts secret-shaped text", () => {
  const view = withoutSecrets({
    id: "key_1",
    key: "sk-gw-abcdefghijklmnop",
    hash: "ab12",
    previous_hash: "cd34",
    key_count: 2,
    nested: { sealed_keys: ["x"], note: "was sk-live-abcdefghijkl", webhook_secret: "s" },
    list: [{ token: "t", name: "n" }],
    gone: undefined,
  });
  assertEquals(view, {
    id: "key_1",
    key_count: 2,
    nested: { note: "was [redacted]" },
    list: [{ name: "n" }],
  });
});

Deno.test("stableJson() is the same whatever the key order", () => {
  assertEquals(
    stableJson({ b: 1, a: { d: 2, c: [3] } }),
    stableJson({ a: { c: [3], d: 2 }, b: 1 }),
  );
});
