/**
 * Two gateway processes on one remote store (each store of REMOTE_STORES): one account's small
 * wallet spent through both at once (the floor holds, the money is exact), a task submitted on
 * one and finished on the other, and a key rotation and a disable made on one and seen by the
 * other within the key cache time (docs/operations.md, "Several instances").
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { type GatewayProcess, spawnGateway } from "../../helpers/gateway_process.ts";
import { type RemoteStore, remoteStoreTest } from "../../helpers/remote_store.ts";
import {
  adminCall,
  chat,
  eventually,
  loggedCosts,
  makeKey,
  setUpTextModel,
} from "../../helpers/outage_setup.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";
import { IMAGE_MODEL, IMAGE_PRICE } from "../../helpers/image_setup.ts";
import { KEY_CACHE_MS } from "../../../core/keys/key_store.ts";

const REQUESTS = 200;

function envOf(store: RemoteStore, extra: Record<string, string> = {}) {
  return { ...store.env, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GATEWAY_LOG_REQUESTS: "0", ...extra };
}

/** Waits until `gateway` serves model `m` (its registry follows the store within seconds). */
async function servesModel(gateway: GatewayProcess, key: string): Promise<void> {
  await eventually("the model served", async () => (await chat(gateway.url, key)).status === 200);
}

remoteStoreTest(
  "two instances: 200 concurrent requests on one small wallet hold its floor, money exact",
  async (store) => {
    await using upstream = startOpenAIChatUpstream();
    await using a = await spawnGateway(envOf(store));
    await using b = await spawnGateway(envOf(store));
    await setUpTextModel(a.url, upstream.baseUrl);
    const probe = await makeKey(a.url, { balance: 1_000_000 });
    await servesModel(b, probe.key);

    const opening = 600;
    const account = await adminCall(a.url, "POST", "/admin/accounts", {
      name: "small",
      balance: opening,
    });
    const accountId: string = account.body.id;
    const keys: Array<{ key: string }> = [];
    for (let i = 0; i < 4; i++) keys.push(await makeKey(a.url, { account_id: accountId }));

    const answers = await Promise.all(
      Array.from(
        { length: REQUESTS },
        (_, index) => chat([a, b][index % 2].url, keys[index % keys.length].key, { maxTokens: 10 }),
      ),
    );
    let answeredCost = 0;
    const served = [0, 0];
    answers.forEach((answer, index) => {
      assertOk([200, 402].includes(answer.status), JSON.stringify(answer.body));
      if (answer.status === 200) {
        answeredCost += answer.cost;
        served[index % 2]++;
      }
    });
    console.log(`served by the two instances: ${served.join(" and ")} of ${REQUESTS}`);
    assertOk(served[0] + served[1] > 0, "nothing was served");

    let balance = NaN;
    await eventually("every answered cost written", async () => {
      balance = (await adminCall(b.url, "GET", `/admin/accounts/${accountId}`)).body.balance;
      assertOk(balance >= 0, `the floor broken: balance ${balance}`);
      return opening - balance === answeredCost;
    });
    for (const gateway of [a, b]) {
      const verify = await adminCall(
        gateway.url,
        "GET",
        `/admin/accounts/${accountId}/ledger/verify`,
      );
      assertEquals(verify.body.ok, true, JSON.stringify(verify.body));
    }
    await eventually(
      "every answered request logged with its cost",
      async () => (await loggedCosts(b.url, accountId)) === opening - balance,
    );
  },
  serverTest,
);

remoteStoreTest(
  "two instances: a task submitted on one is finished on the other, billed once",
  async (store) => {
    await using upstream = startOpenAIImagesUpstream({ delayMs: 60_000 });
    const env = envOf(store, { GATEWAY_TASK_LEASE_MS: "1000", GATEWAY_TASK_POLL_MS: "100" });
    const first = await spawnGateway(env);
    try {
      await adminCall(first.url, "PUT", `/admin/models/${IMAGE_MODEL}`, {
        kind: "image",
        price: IMAGE_PRICE,
      });
      await adminCall(first.url, "POST", "/admin/channels", {
        name: "images",
        type: "openai-images",
        base_url: upstream.baseUrl,
        keys: ["sk-upstream-test"],
        models: [IMAGE_MODEL],
      });
      const { id: keyId, key } = await makeKey(first.url, { balance: 1_000_000 });
      const submitted = await postJson(first, "/v1/images/generations", key, {
        prompt: "finish me elsewhere",
      }, { "x-gateway-async-task": "true" }).then((response) => response.json());
      const taskId = submitted.data.task_id;
      // The first instance (the only one yet) claimed it and called the upstream.
      await eventually("the first instance started the task", () => upstream.requests.length > 0);

      await using second = await spawnGateway(env);
      first.child.kill("SIGKILL");
      await first.child.status;
      upstream.options.delayMs = 0;
      let task: { status: string } | undefined;
      await eventually("the second instance finished the task", async () => {
        const response = await fetch(`${second.url}/v1/images/tasks/${taskId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        task = (await response.json()).data;
        return task?.status === "succeeded" || task?.status === "failed";
      });
      assertEquals(task!.status, "succeeded");
      const ledger = await adminCall(second.url, "GET", `/admin/ledger?key=${keyId}&order=asc`);
      assertEquals(ledger.body.data.map((entry: { type: string }) => entry.type), [
        "credit",
        "hold",
        "settle",
      ]);
      const record = await adminCall(second.url, "GET", `/admin/keys/${keyId}`);
      assertEquals(record.body.balance, 1_000_000 - IMAGE_PRICE.per_image);
    } finally {
      try {
        first.child.kill("SIGKILL");
      } catch {
        // killed above
      }
      await first.child.status;
    }
  },
  serverTest,
);

remoteStoreTest(
  "two instances: a rotation and a disable on one are seen by the other within the key cache time",
  async (store) => {
    await using upstream = startOpenAIChatUpstream();
    await using a = await spawnGateway(envOf(store));
    await using b = await spawnGateway(envOf(store));
    await setUpTextModel(a.url, upstream.baseUrl);
    const { id, key } = await makeKey(a.url, { balance: 1_000_000 });
    await servesModel(b, key);
    // Both instances have the key cached now.
    assertEquals((await chat(a.url, key)).status, 200);

    const rotated = await adminCall(a.url, "POST", `/admin/keys/${id}/rotate`, {
      grace_seconds: 0,
    });
    assertEquals(rotated.status, 200, JSON.stringify(rotated.body));
    const fresh: string = rotated.body.key;
    const rotatedAt = Date.now();
    // At once on the instance that made the change…
    assertEquals((await chat(a.url, key)).status, 401);
    assertEquals((await chat(a.url, fresh)).status, 200);
    // …and on the other once its cached record has expired, whatever the load.
    await new Promise((resolve) =>
      setTimeout(resolve, rotatedAt + KEY_CACHE_MS + 500 - Date.now())
    );
    assertEquals((await chat(b.url, key)).status, 401);
    assertEquals((await chat(b.url, fresh)).status, 200);

    const disabled = await adminCall(a.url, "PATCH", `/admin/keys/${id}`, { enabled: false });
    assertEquals(disabled.status, 200, JSON.stringify(disabled.body));
    const disabledAt = Date.now();
    const onA = await chat(a.url, fresh);
    assertEquals([onA.status, onA.body.error?.code], [401, "key_disabled"]);
    await new Promise((resolve) =>
      setTimeout(resolve, disabledAt + KEY_CACHE_MS + 500 - Date.now())
    );
    const onB = await chat(b.url, fresh);
    assertEquals([onB.status, onB.body.error?.code], [401, "key_disabled"]);
  },
  serverTest,
);
