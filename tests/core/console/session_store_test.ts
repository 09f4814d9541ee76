import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ConsoleSessionStore } from "../../../core/console/session_store.ts";

Deno.test("ConsoleSessionStore: create, get, delete; KV holds the id's hash, never the id", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new ConsoleSessionStore(kv, { ttlMs: 60_000 });
  const session = await store.create({ kind: "holder", keyId: "key_1" });
  assertOk(/^[0-9A-Za-z]{43}$/.test(session.id), session.id);
  const read = await store.get(session.id);
  assertEquals(read?.role, { kind: "holder", keyId: "key_1" });
  assertEquals(read?.csrf, session.csrf);
  for await (const entry of kv.list({ prefix: [] })) {
    assertOk(!JSON.stringify(entry).includes(session.id), "the id is not stored");
  }
  assertEquals(await store.get("not-a-session"), null);
  await store.delete(session.id);
  assertEquals(await store.get(session.id), null);
});

Deno.test("ConsoleSessionStore.get() refuses a session past its expiry", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new ConsoleSessionStore(kv, { ttlMs: 60_000 });
  const session = await store.create({ kind: "operator" }, 1_000);
  assertEquals((await store.get(session.id, 60_000))?.role, { kind: "operator" });
  assertEquals(await store.get(session.id, 61_000), null);
});

Deno.test("ConsoleSessionStore flash: sealed in KV, read once, only with the session id", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new ConsoleSessionStore(kv);
  const session = await store.create({ kind: "operator" });
  const other = await store.create({ kind: "operator" });
  await store.putFlash(session.id, { owner: "key_a", secret: "sk-gw-secret-value" });
  for await (const entry of kv.list({ prefix: [] })) {
    assertOk(!JSON.stringify(entry).includes("sk-gw-secret"), "only ciphertext in KV");
  }
  assertEquals(await store.takeFlash(other.id, "key_a"), null);
  assertEquals(await store.takeFlash(session.id, "key_b"), null, "another key's page");
  assertEquals(await store.takeFlash(session.id, "key_a"), "sk-gw-secret-value");
  assertEquals(await store.takeFlash(session.id, "key_a"), null);
  assertOk(await store.get(session.id), "the session stays");
});

Deno.test("ConsoleSessionStore: a member's sessions are indexed; ending the others keeps this one", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new ConsoleSessionStore(kv, { ttlMs: 60_000 });
  const role = { kind: "member", memberId: "mem_1", accountId: "acct_1" } as const;
  const here = await store.create(role);
  const phone = await store.create(role);
  const other = await store.create({ ...role, memberId: "mem_2" });
  const listed = await store.ofMember("mem_1", here.id);
  assertEquals(listed.length, 2);
  assertEquals(listed.filter((s) => s.current).length, 1);
  assertEquals(await store.endMemberSessions("mem_1", here.id), 1);
  assertEquals(await store.get(phone.id), null);
  assertEquals((await store.get(here.id))?.role, role);
  assertEquals((await store.get(other.id))?.role.kind, "member");
  await store.setRole(here.id, { ...role, accountId: "acct_2" });
  assertEquals((await store.get(here.id))?.role, { ...role, accountId: "acct_2" });
  await store.delete(here.id);
  assertEquals((await store.ofMember("mem_1")).length, 0);
  assertEquals([...await Array.fromAsync(kv.list({ prefix: ["member_sessions", "mem_1"] }))], []);
});
