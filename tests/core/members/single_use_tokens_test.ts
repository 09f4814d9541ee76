import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { SingleUseTokens } from "../../../core/members/single_use_tokens.ts";

Deno.test("SingleUseTokens: KV keeps only the hash; consumed once; wrong kind or secret is null", async () => {
  using kv = await Deno.openKv(":memory:");
  const tokens = new SingleUseTokens(kv);
  const { secret } = await tokens.issue("reset", { member_id: "mem_1" }, 3_600_000);
  for await (const entry of kv.list({ prefix: [] })) {
    assertOk(!JSON.stringify(entry.key).includes(secret), "the secret is not a key");
    assertOk(!JSON.stringify(entry.value).includes(secret), "the secret is not stored");
  }
  assertEquals(await tokens.consume("invitation", secret), null);
  assertEquals(await tokens.peek("reset", secret), { member_id: "mem_1" });
  assertEquals(await tokens.consume("reset", "x".repeat(43)), null);
  assertEquals(await tokens.consume("reset", secret), { member_id: "mem_1" });
  assertEquals(await tokens.consume("reset", secret), null);
  assertEquals(await tokens.peek("reset", secret), null);
});

Deno.test("SingleUseTokens: a token past its expiry is refused", async () => {
  using kv = await Deno.openKv(":memory:");
  const tokens = new SingleUseTokens(kv);
  const now = Date.now();
  const { secret } = await tokens.issue("reset", { member_id: "mem_1" }, 3_600_000, now);
  assertEquals(await tokens.peek("reset", secret, now + 3_600_001), null);
  assertEquals(await tokens.consume("reset", secret, now + 3_600_001), null);
  assertEquals(await tokens.consume("reset", secret, now + 3_599_000), { member_id: "mem_1" });
});

Deno.test("SingleUseTokens: 20 concurrent consumptions of one token, exactly one succeeds", async () => {
  const dir = await Deno.makeTempDir();
  // Two handles on one file, as two instances would have.
  using kvA = await Deno.openKv(`${dir}/race.kv`);
  using kvB = await Deno.openKv(`${dir}/race.kv`);
  const a = new SingleUseTokens(kvA);
  const b = new SingleUseTokens(kvB);
  const { secret } = await a.issue("invitation", { id: "inv_1" }, 60_000);
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).consume("invitation", secret)),
  );
  assertEquals(results.filter((result) => result !== null).length, 1);
  await Deno.remove(dir, { recursive: true });
});
