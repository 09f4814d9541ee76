import { assertEquals, assertRejects } from "../../helpers/assert.ts";
import { expiresAtOf, type FetchedToken, TokenCache } from "../../../core/upstream/token_cache.ts";

/** A clock the test moves, and a fetch that counts its calls and gives `token-N`. */
function setup(options: { refreshBeforeMs?: number; maxEntries?: number } = {}) {
  let now = 1_000_000;
  let calls = 0;
  const cache = new TokenCache({ now: () => now, ...options });
  const fetchFor = (lifetimeMs: number) => (): Promise<FetchedToken> => {
    calls++;
    return Promise.resolve({ token: `token-${calls}`, expiresAt: now + lifetimeMs });
  };
  return {
    cache,
    fetchFor,
    advance: (ms: number) => (now += ms),
    calls: () => calls,
  };
}

const HOUR = 3_600_000;
const MINUTE = 60_000;

Deno.test("a token is fetched once and kept until shortly before it expires", async () => {
  const { cache, fetchFor, advance, calls } = setup();
  const fetch = fetchFor(HOUR);
  assertEquals(await cache.get("channel-1:key-a", fetch), "token-1");
  advance(HOUR - 5 * MINUTE - 1);
  assertEquals(await cache.get("channel-1:key-a", fetch), "token-1");
  assertEquals(calls(), 1);
  // Five minutes before expiry (the default margin), it is replaced.
  advance(1);
  assertEquals(await cache.get("channel-1:key-a", fetch), "token-2");
  assertEquals(calls(), 2);
});

Deno.test("tokens are kept per credential", async () => {
  const { cache, fetchFor } = setup();
  assertEquals(await cache.get("channel-1:key-a", fetchFor(HOUR)), "token-1");
  assertEquals(await cache.get("channel-1:key-b", fetchFor(HOUR)), "token-2");
  assertEquals(await cache.get("channel-1:key-a", fetchFor(HOUR)), "token-1");
  assertEquals(cache.size, 2);
});

Deno.test("requests that find no token wait for the same fetch", async () => {
  const { cache, calls } = setup();
  let release!: (token: FetchedToken) => void;
  let started = 0;
  const slow = () => {
    started++;
    return new Promise<FetchedToken>((resolve) => (release = resolve));
  };
  const first = cache.get("k", slow);
  const second = cache.get("k", slow);
  release({ token: "shared", expiresAt: 1_000_000 + HOUR });
  assertEquals(await Promise.all([first, second]), ["shared", "shared"]);
  assertEquals(started, 1);
  assertEquals(calls(), 0);
});

Deno.test("a failed fetch is not kept: the next request fetches again", async () => {
  const { cache, fetchFor } = setup();
  await assertRejects(() => cache.get("k", () => Promise.reject(new Error("refused"))));
  assertEquals(await cache.get("k", fetchFor(HOUR)), "token-1");
});

Deno.test("a failed refresh uses the kept token while it has not expired, then fails", async () => {
  const { cache, fetchFor, advance } = setup();
  assertEquals(await cache.get("k", fetchFor(HOUR)), "token-1");
  const refused = () => Promise.reject(new Error("token endpoint down"));
  advance(HOUR - MINUTE);
  assertEquals(await cache.get("k", refused), "token-1");
  advance(MINUTE);
  await assertRejects(() => cache.get("k", refused));
});

Deno.test("a short-lived token is replaced at half its life", async () => {
  const { cache, fetchFor, advance } = setup();
  const fetch = fetchFor(4 * MINUTE);
  assertEquals(await cache.get("k", fetch), "token-1");
  advance(2 * MINUTE - 1);
  assertEquals(await cache.get("k", fetch), "token-1");
  advance(1);
  assertEquals(await cache.get("k", fetch), "token-2");
});

Deno.test("an already expired token is used for its request but not kept", async () => {
  const { cache, fetchFor } = setup();
  assertEquals(await cache.get("k", fetchFor(0)), "token-1");
  assertEquals(await cache.get("k", fetchFor(0)), "token-2");
  assertEquals(cache.size, 0);
});

Deno.test("forget drops a token the upstream refused", async () => {
  const { cache, fetchFor } = setup();
  assertEquals(await cache.get("k", fetchFor(HOUR)), "token-1");
  cache.forget("k");
  assertEquals(await cache.get("k", fetchFor(HOUR)), "token-2");
});

Deno.test("past maxEntries, expired entries go first, then the oldest", async () => {
  const { cache, fetchFor, advance } = setup({ maxEntries: 2 });
  await cache.get("short", fetchFor(MINUTE));
  await cache.get("old", fetchFor(HOUR));
  advance(2 * MINUTE);
  await cache.get("new", fetchFor(HOUR));
  assertEquals(cache.size, 2);
  // "old" is still kept (the expired "short" went instead).
  assertEquals(await cache.get("old", fetchFor(HOUR)), "token-2");
  await cache.get("newest", fetchFor(HOUR));
  assertEquals(cache.size, 2);
  assertEquals(await cache.get("old", fetchFor(HOUR)), "token-5");
});

Deno.test("expiresAtOf reads expires_in seconds from now", () => {
  assertEquals(expiresAtOf(3599, 1_000), 3_600_000);
});

Deno.test("forget with a token drops it, but not a newer one that replaced it", async () => {
  const { cache, fetchFor } = setup();
  assertEquals(await cache.get("a", fetchFor(HOUR)), "token-1");
  cache.forget("a", "token-1");
  assertEquals(await cache.get("a", fetchFor(HOUR)), "token-2");
  cache.forget("a", "token-1");
  assertEquals(await cache.get("a", fetchFor(HOUR)), "token-2", "token-2 stays");
});
