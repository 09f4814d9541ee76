/**
 * Two accounts on one real gateway for the isolation tests: `alpha` (A, the prober) and `bravo`
 * (B, the target). Each has an owner and a plain member signed in to the console with a personal
 * access token each, a key made by each of them in the console, a chat request per key through a
 * simulated upstream, an image task whose result is hosted media, a redeemed code and so ledger
 * entries. `markersOf(B)` lists everything of B that must never show in an answer to A, and
 * `snapshotOf(B)` reads B through the admin API (and B's own tokens) to compare before and after.
 */

import { assertEquals, assertOk } from "./assert.ts";
import { postJson, startTestGateway, TEST_TEXT_PRICE, type TestGateway } from "./gateway.ts";
import { type MemberClient, textOf } from "./member_console.ts";
import { call, createAccount, MODEL, signedInMember } from "./account_api.ts";
import { IMAGE_MODEL, IMAGE_PRICE } from "./image_setup.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";
import { startOpenAIImagesUpstream } from "../upstream/openai_images.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export type Role = "owner" | "member";

export interface Person {
  role: Role;
  email: string;
  memberId: string;
  client: MemberClient;
  tokenId: string;
  token: string;
}

export interface Side {
  id: string;
  name: string;
  people: Record<Role, Person>;
  /** The key each person made: id, name, prefix and secret. */
  keys: Array<{ id: string; name: string; prefix: string; secret: string }>;
  requestIds: string[];
  taskId: string;
  mediaId: string;
  mediaUrl: string;
  ledgerIds: string[];
  /** The code this account redeemed (spent) and its id. */
  code: { id: string; code: string };
}

export interface IsolationWorld extends AsyncDisposable {
  gw: TestGateway;
  a: Side;
  b: Side;
  batchId: string;
}

/** A token made in Settings: its id (from the redirect) and the secret shown once. */
async function tokenOf(client: MemberClient, name: string) {
  const created = await client.postMember("/console/settings/tokens", {
    name,
    expires_in_days: "30",
  });
  await created.body?.cancel();
  const location = created.headers.get("location") ?? "";
  const id = new URL(location, "http://x").searchParams.get("id") ?? "";
  assertOk(id.startsWith("pat_"), `token made: ${created.status} ${location}`);
  const page = await (await client.get(location)).text();
  const token = page.match(/id="secret" class="secret">(gwpat-[0-9A-Za-z]{43})</)?.[1];
  assertOk(token, "the token's secret is on the page");
  return { tokenId: id, token };
}

/** A key made in the console by `client`: id and secret. */
async function keyOf(client: MemberClient, name: string) {
  const made = await client.postMember("/console/account/keys", { name, enabled: "true" });
  await made.body?.cancel();
  assertEquals(made.status, 303, `key ${name} made`);
  const id = made.headers.get("location")!.split("/")[4];
  const secret = textOf(
    await (await client.get(`/console/account/keys/${id}/created`)).text(),
    "secret",
  );
  return { id, secret };
}

async function imageTask(gw: TestGateway, key: string) {
  const submitted = await postJson(gw, "/v1/images/generations", key, {
    model: IMAGE_MODEL,
    prompt: "a lighthouse",
  }, { "x-gateway-async-task": "true" });
  const answer = await submitted.json();
  assertEquals(submitted.status, 200, JSON.stringify(answer));
  const taskId = answer.data.task_id as string;
  for (let i = 0; i < 400; i++) {
    const polled = await call(gw, key, "GET", `/v1/images/tasks/${taskId}`);
    if (polled.body.data?.status === "succeeded") {
      const mediaUrl = polled.body.data.image_urls[0] as string;
      const mediaId = mediaUrl.match(/\/media\/(med_[0-9A-Za-z]+)/)?.[1];
      assertOk(mediaId, mediaUrl);
      return { taskId, mediaId, mediaUrl };
    }
    assertOk(polled.body.data?.status !== "failed", JSON.stringify(polled.body));
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${taskId} did not finish`);
}

async function side(gw: TestGateway, name: string, code: { id: string; code: string }) {
  const account = await createAccount(gw, { name: `${name}-corp`, balance: 50_000_000 });
  const people = {} as Record<Role, Person>;
  for (const role of ["owner", "member"] as const) {
    const email = `${name}-${role}@example.com`;
    const { client, memberId } = await signedInMember(gw, account.id, email, role);
    people[role] = { role, email, memberId, client, ...await tokenOf(client, `${name}-script`) };
  }
  const keys = [];
  for (const role of ["owner", "member"] as const) {
    const keyName = `${name}-${role}-app`;
    const { id, secret } = await keyOf(people[role].client, keyName);
    const chat = await postJson(gw, "/v1/chat/completions", secret, {
      model: MODEL,
      messages: [{ role: "user", content: "Hi" }],
    });
    assertEquals(chat.status, 200, await chat.text());
    const prefix = (await gw.admin("GET", `/admin/keys/${id}`)).body.prefix as string;
    keys.push({ id, name: keyName, prefix, secret });
  }
  const task = await imageTask(gw, keys[0].secret);
  const redeemed = await call(gw, people.owner.token, "POST", "/v1/account/redeem", {
    code: code.code,
  });
  assertEquals(redeemed.status, 200, JSON.stringify(redeemed.body));
  await gw.settle();
  const requests = await gw.admin("GET", `/admin/requests?account=${account.id}&limit=1000`);
  const ledger = await gw.admin("GET", `/admin/accounts/${account.id}/ledger?limit=1000`);
  const requestIds = requests.body.data.map((r: Json) => r.id as string);
  assertOk(requestIds.length >= 2, JSON.stringify(requests.body));
  return {
    id: account.id as string,
    name: account.name as string,
    people,
    keys,
    requestIds,
    ...task,
    ledgerIds: ledger.body.data.map((e: Json) => e.id as string),
    code,
  };
}

export async function startIsolationWorld(): Promise<IsolationWorld> {
  const text = startOpenAIChatUpstream();
  const images = startOpenAIImagesUpstream();
  const gw = await startTestGateway({ GATEWAY_TASK_POLL_MS: "50" });
  await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
  await gw.putModel(IMAGE_MODEL, { kind: "image", price: IMAGE_PRICE });
  await gw.addChannel({
    name: "sim",
    type: "openai",
    base_url: text.baseUrl,
    keys: ["sk-upstream-test"],
    models: [MODEL],
  });
  await gw.addChannel({
    name: "images",
    type: "openai-images",
    base_url: images.baseUrl,
    models: [IMAGE_MODEL],
  });
  const batch = await gw.admin("POST", "/admin/redemption-batches", {
    name: "isolation",
    amount: 1_000_000,
    count: 2,
  });
  assertEquals(batch.status, 201, JSON.stringify(batch.body));
  const codes = batch.body.codes.map((c: Json) => ({ id: c.id as string, code: c.code as string }));
  const a = await side(gw, "alpha", codes[0]);
  const b = await side(gw, "bravo", codes[1]);
  return {
    gw,
    a,
    b,
    batchId: batch.body.id,
    async [Symbol.asyncDispose]() {
      await gw.close();
      await text[Symbol.asyncDispose]();
      await images.close();
    },
  };
}

/** Every string of `side` that names or describes one of its records. */
export function markersOf(side: Side): string[] {
  return [
    side.id,
    side.name,
    ...side.keys.flatMap((key) => [key.id, key.name, key.prefix, key.secret]),
    ...side.requestIds,
    side.taskId,
    side.mediaId,
    ...side.ledgerIds,
    side.code.id,
    side.code.code,
    ...Object.values(side.people).flatMap((p) => [p.email, p.memberId, p.tokenId, p.token]),
  ];
}

/**
 * Fails when `body` holds a marker of B, except those the caller sent itself (an id echoed in a
 * "No key of this account has the id …" answer or a filter field tells the caller nothing new).
 */
export function assertNoneOf(markers: string[], body: string, sent: string, what: string) {
  const leaked = markers.filter((marker) => !sent.includes(marker) && body.includes(marker));
  assertEquals(leaked, [], `${what}: the answer shows records of the other account`);
}

/** B as the operator (and B's own tokens) see it: equal before and after the probes. */
export async function snapshotOf(gw: TestGateway, side: Side) {
  const read = async (path: string) => {
    const answer = await gw.admin("GET", path);
    assertEquals(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const members = (await read("/admin/members?limit=1000")).data
    .map((m: Json) => ({
      id: m.id,
      email: m.email,
      memberships: m.memberships?.filter((s: Json) => s.account_id === side.id),
    }))
    .filter((m: Json) => m.memberships?.length);
  const tokens = [];
  for (const person of Object.values(side.people)) {
    const settings = await (await person.client.get("/console/settings")).text();
    const ids = [...settings.matchAll(/pat_[0-9A-Za-z]+/g)].map((m) => m[0]);
    assertOk(ids.includes(person.tokenId), "Settings lists the member's tokens");
    const api = await call(gw, person.token, "GET", "/v1/account");
    tokens.push({ ids: [...new Set(ids)].sort(), works: api.status, account: api.body?.id });
  }
  const tasks = [];
  for (const key of side.keys) tasks.push(await read(`/admin/tasks?key=${key.id}`));
  return {
    account: await read(`/admin/accounts/${side.id}`),
    keys: await read(`/admin/accounts/${side.id}/keys`),
    ledger: await read(`/admin/accounts/${side.id}/ledger?limit=1000`),
    verify: await read(`/admin/accounts/${side.id}/ledger/verify`),
    requests: await read(`/admin/requests?account=${side.id}&limit=1000`),
    tasks,
    members,
    tokens,
  };
}
