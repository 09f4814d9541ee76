/**
 * A key without an owner owns its tasks as `key:<id>`. An admin cannot give another key that
 * owner (it would read the first key's tasks): `owner` refuses the `key:` form, and one stored
 * before that check counts as no owner.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertAdminError } from "../helpers/admin_error.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { setupImages } from "../helpers/image_setup.ts";
import { kvKeys } from "../../core/kv/kv_keys.ts";

async function taskStatus(baseUrl: string, key: string, id: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/images/tasks/${id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await response.body?.cancel();
  return response.status;
}

Deno.test(
  "key owner: 'key:<id>' cannot be chosen on create or patch, and a stored one reads no other key's tasks",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "mine" }, {
      "x-gateway-async-task": "true",
    });
    assertEquals(submitted.status, 200);
    const taskId = (await submitted.json()).data.task_id;
    assertEquals(await taskStatus(s.gw.url, s.key, taskId), 200);
    const keysBefore = (await s.gw.admin("GET", "/admin/keys?limit=1000")).body.data.length;

    for (const owner of [`key:${s.keyId}`, `KEY:${s.keyId}`, "key:anything"]) {
      const created = await s.gw.admin("POST", "/admin/keys", { name: "intruder", owner });
      const message = assertAdminError(created, 400, "invalid_request");
      assertEquals(created.body.error.param, "owner");
      assertOk(message.includes("key:"), message);
    }
    assertEquals((await s.gw.admin("GET", "/admin/keys?limit=1000")).body.data.length, keysBefore);

    const other = await s.gw.createKey({ name: "other", owner: "team-a" });
    const patched = await s.gw.admin("PATCH", `/admin/keys/${other.id}`, {
      owner: `key:${s.keyId}`,
    });
    assertAdminError(patched, 400, "invalid_request");
    assertEquals(patched.body.error.param, "owner");
    assertEquals((await s.gw.admin("GET", `/admin/keys/${other.id}`)).body.owner, "team-a");
    assertEquals(await taskStatus(s.gw.url, other.key, taskId), 404);

    // A key stored with that owner before the check was there reads only its own tasks.
    const stored = await s.gw.createKey({ name: "stored earlier" });
    {
      using kv = await Deno.openKv(s.gw.kvPath);
      const entry = await kv.get<Record<string, unknown>>(kvKeys.apiKey(stored.id));
      await kv.set(kvKeys.apiKey(stored.id), { ...entry.value, owner: `key:${s.keyId}` });
    }
    assertEquals(await taskStatus(s.gw.url, stored.key, taskId), 404);
    assertEquals(await taskStatus(s.gw.url, s.key, taskId), 200);
  },
);

Deno.test(
  "key owner: a label shares tasks between keys of one account only; another account's key with the same label reads nothing and replays nothing",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const accountA = (await s.gw.admin("POST", "/admin/accounts", { name: "A", balance: 1e6 }))
      .body.id;
    const accountB = (await s.gw.admin("POST", "/admin/accounts", { name: "B", balance: 1e6 }))
      .body.id;
    const keyIn = async (account: string, name: string) =>
      (await s.gw.admin("POST", "/admin/keys", { name, account_id: account, owner: "shared" }))
        .body.key as string;
    const a1 = await keyIn(accountA, "a1");
    const a2 = await keyIn(accountA, "a2");
    const b1 = await keyIn(accountB, "b1");
    const submit = (key: string) =>
      postJson(s.gw, "/v1/images/generations", key, { prompt: "mine" }, {
        "x-gateway-async-task": "true",
        "idempotency-key": "same-key",
      });
    const submitted = await submit(a1);
    assertEquals(submitted.status, 200);
    const taskId = (await submitted.json()).data.task_id;
    assertEquals(await taskStatus(s.gw.url, a2, taskId), 200, "same account, same label");
    assertEquals(await taskStatus(s.gw.url, b1, taskId), 404, "another account");
    const replay = await submit(b1);
    const body = await replay.json();
    assertEquals(replay.status, 409, JSON.stringify(body));
    assertEquals(body.error.code, "idempotency_key_reused");
    assertOk(!JSON.stringify(body).includes(taskId), "B learns nothing of A's task");
    const bBalance = (await s.gw.admin("GET", `/admin/accounts/${accountB}`)).body.balance;
    assertEquals(bBalance, 1e6, "nothing held from B");
  },
);
