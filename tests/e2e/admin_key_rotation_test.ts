/**
 * `POST /admin/keys/{id}/rotate` end to end: a new secret shown once, the old one working through
 * its grace and refused after it, the key's id, balance, ledger and settings unchanged, and
 * Idempotency-Key making repeats (also concurrent ones) one rotation.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway, type TestGateway } from "../helpers/gateway.ts";
import { KEY_CACHE_MS } from "../../core/keys/key_store.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";

const ask = { model: MODEL, messages: [{ role: "user" as const, content: "hi" }] };

/** The status a chat request with `secret` gets. */
async function statusWith(gw: TestGateway, secret: string): Promise<number> {
  const client = new OpenAI({ apiKey: secret, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  try {
    await client.chat.completions.create(ask);
    return 200;
  } catch (error) {
    assertOk(error instanceof OpenAI.APIError, String(error));
    return error.status;
  }
}

function rotate(gw: TestGateway, id: string, body?: unknown, idempotencyKey?: string) {
  return fetch(`${gw.url}/admin/keys/${id}/rotate`, {
    method: "POST",
    headers: {
      authorization: "Bearer test-admin-token",
      "content-type": "application/json",
      ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, body: await response.json() }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every value in the gateway's KV file, as text (KvU64 counters as numbers). */
async function kvText(gw: TestGateway): Promise<string> {
  const kv = await Deno.openKv(gw.kvPath);
  try {
    const values = [];
    for await (const entry of kv.list({ prefix: [] })) values.push([entry.key, entry.value]);
    return JSON.stringify(values, (_, value) => typeof value === "bigint" ? Number(value) : value);
  } finally {
    kv.close();
  }
}

Deno.test(
  "rotate: new secret shown once; old one works through a 1 s grace, then 401; the key stays",
  serverTest,
  async () => {
    await using s = await setupChat({ key: { name: "rotating", rpm: 1000, tpm: 100_000 } });
    assertEquals(await statusWith(s.gw, s.key), 200);
    await s.gw.settle();
    const before = (await s.gw.admin("GET", `/admin/keys/${s.keyId}`)).body;
    const ledgerBefore = await s.gw.ledger(s.keyId);

    const rotated = await rotate(s.gw, s.keyId, { grace_seconds: 1 });
    assertEquals(rotated.status, 200, JSON.stringify(rotated.body));
    const secret: string = rotated.body.key;
    assertOk(secret.startsWith("sk-") && secret !== s.key);
    assertEquals(rotated.body.id, s.keyId);
    assertEquals(rotated.body.prefix, secret.slice(0, 10));
    assertEquals(rotated.body.previous_secret.prefix, s.key.slice(0, 10));
    for (const field of ["name", "group", "balance", "rpm", "tpm", "spend_limits", "created_at"]) {
      assertEquals(rotated.body[field], before[field], field);
    }
    assertEquals(await s.gw.ledger(s.keyId), ledgerBefore);
    // Shown once: reads of the key never carry a secret or a hash.
    const read = (await s.gw.admin("GET", `/admin/keys/${s.keyId}`)).body;
    assertEquals([read.key, read.hash, read.previous_secret.hash], [
      undefined,
      undefined,
      undefined,
    ]);

    assertEquals(await statusWith(s.gw, secret), 200);
    assertEquals(await statusWith(s.gw, s.key), 200, "the old secret works during its grace");
    await sleep(1_100);
    assertEquals(await statusWith(s.gw, s.key), 401, "the old secret is refused after its grace");
    assertEquals(await statusWith(s.gw, secret), 200);

    await s.gw.settle();
    const text = await kvText(s.gw);
    assertOk(!text.includes(secret) && !text.includes(s.key), "a secret is stored in clear");
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);

Deno.test(
  "rotate: grace_seconds 0 ends the old secret at once; a new rotation replaces a running grace",
  serverTest,
  async () => {
    await using s = await setupChat();
    const first = await rotate(s.gw, s.keyId, { grace_seconds: 0 });
    assertEquals(first.status, 200);
    assertEquals(first.body.previous_secret, null);
    assertEquals(await statusWith(s.gw, s.key), 401);

    const second = await rotate(s.gw, s.keyId, { grace_seconds: 3600 });
    const third = await rotate(s.gw, s.keyId); // the default grace, 24 h
    assertEquals(third.status, 200);
    const graceEnd = Date.parse(third.body.previous_secret.expires_at) - Date.now();
    assertOk(graceEnd > 23 * 3600_000 && graceEnd <= 24 * 3600_000, String(graceEnd));
    assertEquals(await statusWith(s.gw, first.body.key), 401, "the earlier grace was replaced");
    assertEquals(await statusWith(s.gw, second.body.key), 200);
    assertEquals(await statusWith(s.gw, third.body.key), 200);
  },
);

Deno.test(
  "rotate: a repeated Idempotency-Key answers the same rotation; 3 at once make one",
  serverTest,
  async () => {
    await using s = await setupChat();
    const once = await rotate(s.gw, s.keyId, { grace_seconds: 600 }, "rotate-1");
    const again = await rotate(s.gw, s.keyId, { grace_seconds: 600 }, "rotate-1");
    assertEquals(again.status, 200);
    assertEquals(again.body.key, once.body.key);
    const other = await rotate(s.gw, s.keyId, { grace_seconds: 5 }, "rotate-1");
    assertEquals(other.status, 409);
    assertEquals(other.body.error.code, "idempotency_key_reused");

    const concurrent = await Promise.all(
      [1, 2, 3].map(() => rotate(s.gw, s.keyId, { grace_seconds: 600 }, "rotate-2")),
    );
    assertEquals(concurrent.map((answer) => answer.status), [200, 200, 200]);
    const secrets = new Set(concurrent.map((answer) => answer.body.key));
    assertEquals(secrets.size, 1, "three secrets for one Idempotency-Key");
    const [secret] = secrets;
    // One rotation: the secret it replaced is the first rotation's, and it still works.
    const read = (await s.gw.admin("GET", `/admin/keys/${s.keyId}`)).body;
    assertEquals(read.previous_secret.prefix, once.body.key.slice(0, 10));
    assertEquals(read.prefix, secret.slice(0, 10));
    assertEquals(await statusWith(s.gw, once.body.key), 200);
    assertEquals(await statusWith(s.gw, secret), 200);
    assertEquals(await statusWith(s.gw, s.key), 401, "the first secret's grace was replaced");
    const text = await kvText(s.gw);
    assertOk(!text.includes(secret), "the idempotent rotation's secret is stored in clear");
  },
);

Deno.test(
  "rotate: another instance that cached the key refuses the old secret at the grace end",
  serverTest,
  async () => {
    await using s = await setupChat();
    await using other = await startTestGateway({ GATEWAY_KV: s.gw.kvPath });
    assertEquals(await statusWith(other, s.key), 200, "the other instance now caches the key");
    // A grace longer than the key cache: the other instance re-reads the key within it.
    const graceSeconds = Math.ceil(KEY_CACHE_MS / 1000) + 1;
    const rotated = await rotate(s.gw, s.keyId, { grace_seconds: graceSeconds });
    assertEquals(rotated.status, 200);
    assertEquals(await statusWith(other, s.key), 200, "the old secret works during its grace");
    const graceEnd = Date.parse(rotated.body.previous_secret.expires_at);
    await sleep(graceEnd - Date.now() + 100);
    assertEquals(
      await statusWith(other, s.key),
      401,
      "the other instance still takes the old secret",
    );
    assertEquals(await statusWith(other, rotated.body.key), 200);
  },
);

Deno.test("rotate: bad input is a 400 naming it; an unknown key is 404", serverTest, async () => {
  await using s = await setupChat();
  for (const [body, param] of [[{ grace_seconds: -1 }, "grace_seconds"], [{ grace: 5 }, ""]]) {
    const refused = await rotate(s.gw, s.keyId, body);
    assertEquals(refused.status, 400, JSON.stringify(refused.body));
    assertEquals(refused.body.error.code, "invalid_request");
    if (param) assertEquals(refused.body.error.param, param);
  }
  const unknown = await rotate(s.gw, "key_0000000000000000000000", {});
  assertEquals(unknown.status, 404);
  assertEquals(unknown.body.error.code, "key_not_found");
  assertEquals(await statusWith(s.gw, s.key), 200, "a refused rotation changed the secret");
});
