import { assertEquals, assertOk, assertRejects } from "../../helpers/assert.ts";
import { GatewayError } from "../../../core/errors.ts";
import {
  AccessTokens,
  checkAccessTokenInput,
  MAX_TOKENS_PER_ACCOUNT,
} from "../../../core/members/access_tokens.ts";

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => null, (e) => e);
  assertOk(error instanceof GatewayError, `expected a GatewayError, got ${error}`);
  return error;
}

Deno.test("AccessTokens: gwpat- + 43 base62; KV keeps only its hash; it names its member and account", async () => {
  using kv = await Deno.openKv(":memory:");
  const tokens = new AccessTokens(kv);
  const made = await tokens.create("mem_1", "acct_a", { name: " ci " });
  assertOk(/^gwpat-[0-9A-Za-z]{43}$/.test(made.token), made.token);
  assertEquals([made.name, made.prefix, made.expires_at], ["ci", made.token.slice(0, 10), null]);
  for await (const entry of kv.list({ prefix: [] })) {
    assertOk(!JSON.stringify(entry.key).includes(made.token), "the secret is not a key");
    assertOk(!JSON.stringify(entry.value).includes(made.token), "the secret is not stored");
  }
  const record = await tokens.authenticate(made.token);
  assertEquals([record.id, record.member_id, record.account_id], [made.id, "mem_1", "acct_a"]);
});

Deno.test("AccessTokens: listed per member and account, newest first, with last use; another's is 404", async () => {
  using kv = await Deno.openKv(":memory:");
  const writes: Promise<unknown>[] = [];
  const tokens = new AccessTokens(kv, { track: (work) => writes.push(work) });
  const first = await tokens.create("mem_1", "acct_a", { name: "one" });
  const second = await tokens.create("mem_1", "acct_a", { name: "two" });
  await tokens.create("mem_1", "acct_b", { name: "elsewhere" });
  await tokens.create("mem_2", "acct_a", { name: "someone else's" });
  await tokens.authenticate(first.token);
  await Promise.all(writes); // the last-use write runs behind
  const listed = await tokens.list("mem_1", "acct_a");
  assertEquals(listed.map((t) => t.name), ["two", "one"]);
  assertOk(listed[1].last_used_at !== null && listed[0].last_used_at === null);
  assertOk(!JSON.stringify(listed).includes("hash"), "no hash in the view");
  assertEquals((await refusal(tokens.revoke("mem_2", "acct_a", second.id))).status, 404);
  assertEquals((await refusal(tokens.revoke("mem_1", "acct_b", second.id))).status, 404);
  assertEquals((await refusal(tokens.get("mem_1", "acct_a", "not-an-id"))).status, 404);
  assertEquals((await tokens.get("mem_1", "acct_a", second.id)).name, "two");
});

Deno.test("AccessTokens: revoked, expired, mistyped and API-key secrets are 401", async () => {
  using kv = await Deno.openKv(":memory:");
  const tokens = new AccessTokens(kv);
  const now = Date.now();
  const made = await tokens.create("mem_1", "acct_a", {
    name: "short",
    expires_at: new Date(now + 60_000).toISOString(),
  }, now);
  assertEquals((await tokens.authenticate(made.token, now + 59_000)).id, made.id);
  const expired = await refusal(tokens.authenticate(made.token, now + 60_000));
  assertEquals([expired.status, expired.code], [401, "access_token_expired"]);
  for (const secret of ["sk-gw-" + "a".repeat(43), made.token.slice(0, -1), "gwpat-short"]) {
    assertEquals((await refusal(tokens.authenticate(secret))).code, "invalid_access_token");
  }
  await tokens.authenticate(made.token, now + 1_000); // cached now
  await tokens.revoke("mem_1", "acct_a", made.id);
  assertEquals(
    (await refusal(tokens.authenticate(made.token, now + 1_000))).code,
    "invalid_access_token",
    "a revocation applies at once on the instance that made it",
  );
  assertEquals(await tokens.list("mem_1", "acct_a"), []);
});

Deno.test("AccessTokens: another instance sees a revocation within the cache bound", async () => {
  const dir = await Deno.makeTempDir();
  using kvA = await Deno.openKv(`${dir}/pat.kv`);
  using kvB = await Deno.openKv(`${dir}/pat.kv`);
  const a = new AccessTokens(kvA);
  const b = new AccessTokens(kvB);
  const now = Date.now();
  const made = await a.create("mem_1", "acct_a", { name: "x" }, now);
  await b.authenticate(made.token, now);
  await a.revoke("mem_1", "acct_a", made.id);
  assertEquals((await b.authenticate(made.token, now + 4_999)).id, made.id, "cached");
  assertEquals(
    (await refusal(b.authenticate(made.token, now + 5_001))).code,
    "invalid_access_token",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("AccessTokens: input checks name the field; at most MAX_TOKENS_PER_ACCOUNT a member and account", async () => {
  const now = Date.now();
  const cases: Array<[unknown, string]> = [
    [{ name: "" }, "name"],
    [{ name: "x".repeat(101) }, "name"],
    [{ name: "x", scope: "all" }, "scope"],
    [{ name: "x", expires_at: "tomorrow" }, "expires_at"],
    [{ name: "x", expires_at: new Date(now - 1).toISOString() }, "expires_at"],
    [{ name: "x", expires_at: new Date(now + 400 * 86_400_000).toISOString() }, "expires_at"],
  ];
  for (const [input, param] of cases) {
    const error = await refusal(Promise.resolve().then(() => checkAccessTokenInput(input, now)));
    assertEquals([error.status, error.param], [400, param], JSON.stringify(input));
  }
  using kv = await Deno.openKv(":memory:");
  const tokens = new AccessTokens(kv);
  for (let i = 0; i < MAX_TOKENS_PER_ACCOUNT; i++) {
    await tokens.create("mem_1", "acct_a", { name: `t${i}` });
  }
  await assertRejects(() => tokens.create("mem_1", "acct_a", { name: "one more" }));
  assertEquals(
    (await tokens.create("mem_1", "acct_b", { name: "other account" })).name,
    "other account",
  );
});
