/** Two gateway processes on one KV share the webhook work: every delivery is sent once. */

import { assertEquals } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { IMAGE_MODEL, IMAGE_PRICE } from "../../helpers/image_setup.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { startWebhookReceiver } from "../../helpers/webhook_receiver.ts";
import { verified } from "../../helpers/webhook_setup.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";

const TASKS = 6;

Deno.test(
  "webhooks: two instances on one KV send each delivery once, whichever ends the task",
  serverTest,
  async () => {
    await using upstream = startOpenAIImagesUpstream();
    await using receiver = startWebhookReceiver();
    await using dir = await tempDir();
    const env = {
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_TASK_POLL_MS: "50",
      GATEWAY_LOG_REQUESTS: "0",
      GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1",
      GATEWAY_WEBHOOK_RETRY_BASE_MS: "200",
    };
    await using first = await spawnGateway(env);
    const admin = (method: string, path: string, body?: unknown) =>
      fetch(`${first.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((response) => response.json());
    await admin("PUT", `/admin/models/${IMAGE_MODEL}`, { kind: "image", price: IMAGE_PRICE });
    await admin("POST", "/admin/channels", {
      name: "images",
      type: "openai-images",
      base_url: upstream.baseUrl,
      keys: ["sk-upstream-test"],
      models: [IMAGE_MODEL],
    });
    const { key } = await admin("POST", "/admin/keys", { name: "k", balance: 10_000_000 });
    const endpoint = await admin("POST", "/admin/webhooks", { url: receiver.url });
    await using second = await spawnGateway(env);
    const taskIds: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const gateway = i % 2 ? second : first;
      const answer = await postJson(gateway, "/v1/images/generations", key, {
        prompt: `kite ${i}`,
      }, { "x-gateway-async-task": "true" }).then((response) => response.json());
      taskIds.push(answer.data.task_id);
    }
    const received = await receiver.waitFor(TASKS, 30_000);
    // Both instances keep polling a while longer: nothing is sent twice.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assertEquals(receiver.received.length, TASKS);
    const seen = received.map((request) => verified(endpoint.secret, request).data.task_id);
    assertEquals(seen.sort(), [...taskIds].sort());
    assertEquals(new Set(received.map((request) => request.id)).size, TASKS);
  },
);
