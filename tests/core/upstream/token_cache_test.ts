import { assertEquals, assertRejects } from "../../helpers/assert.ts";
import { RENEW_BEFORE_MS, TokenCache } from "../../../core/upstream/token_cache.ts";

/** A cache on a clock the test moves, and a fetcher that counts its calls. */
function setup() {
  let now = 1_000_000;
  const cache = new TokenCache({ now: () => now });
  let fetched = 0;
  const fetchToken = (lifetimeMs: number) => () => {
    fetched++;
    return Promise.resolve({ token: `t${fetched}`, expiresAt: now + lifetimeMs });
  };
  return {
    cache,
    fetchToken,
    fetched: () => fetched,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

Deno.test("a token is kept per key until shortly before it expires, then fetched anew", async () => {
  const s = setup();
  const hour = 3_600_000;
  assertEquals(await s.cache.token("a", s.fetchToken(hour)), "t1");
  assertEquals(await s.cache.token("a", s.fetchToken(hour)), "t1");
  assertEquals(await s.cache.token("b", s.fetchToken(hour)), "t2", "another key, another token");
  s.advance(hour - RENEW_BEFORE_MS - 1);
  assertEquals(await s.cache.token("a", s.fetchToken(hour)), "t1", "still enough time left");
  s.advance(1);
  assertEquals(await s.cache.token("a", s.fetchToken(hour)), "t3", "renewed before it expires");
  assertEquals(s.fetched(), 3);
});

Deno.test("a token shorter-lived than the renewal margin serves its call and is not reused", async () => {
  const s = setup();
  assertEquals(await s.cache.token("a", s.fetchToken(RENEW_BEFORE_MS / 2)), "t1");
  assertEquals(await s.cache.token("a", s.fetchToken(RENEW_BEFORE_MS / 2)), "t2");
});

Deno.test("callers asking at once share one fetch; a failed fetch is not kept", async () => {
  const s = setup();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  let calls = 0;
  const slow = async () => {
    calls++;
    await gate;
    return { token: "shared", expiresAt: s.cache.now() + 3_600_000 };
  };
  const both = Promise.all([s.cache.token("a", slow), s.cache.token("a", slow)]);
  release();
  assertEquals(await both, ["shared", "shared"]);
  assertEquals(calls, 1);

  await assertRejects(() => s.cache.token("c", () => Promise.reject(new Error("refused"))));
  assertEquals(await s.cache.token("c", s.fetchToken(3_600_000)), "t1", "the failure was not kept");
});

Deno.test("forget drops a refused token, but not a newer one that replaced it", async () => {
  const s = setup();
  const hour = 3_600_000;
  assertEquals(await s.cache.token("a", s.fetchToken(hour)), "t1");
  s.cache.forget("a", "t1");
  assertEquals(await s.cache.token("a", s.fetchToken(hour)), "t2");
  s.cache.forget("a", "t1");
  assertEquals(await s.cache.token("a", s.fetchToken(hour)), "t2", "t2 stays");
});
