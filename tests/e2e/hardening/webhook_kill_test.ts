/** A gateway killed with kill -9 mid-delivery: the delivery is sent again after the restart. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { IMAGE_MODEL, IMAGE_PRICE } from "../../helpers/image_setup.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { startWebhookReceiver } from "../../helpers/webhook_receiver.ts";
import { eventually, verified } from "../../helpers/webhook_setup.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";

Deno.test(
  "webhooks: the gateway killed mid-delivery (kill -9) delivers after restart, same webhook-id",
  serverTest,
  async () => {
    await using upstream = startOpenAIImagesUpstream();
    await using receiver = startWebhookReceiver({ kind: "hang" });
    await using dir = await tempDir();
    const env = {
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_TASK_POLL_MS: "50",
      GATEWAY_LOG_REQUESTS: "0",
      GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1",
      GATEWAY_WEBHOOK_TIMEOUT_MS: "2000",
      GATEWAY_WEBHOOK_RETRY_BASE_MS: "200",
    };
    await using first = await spawnGateway(env);
    let gateway = first;
    const admin = (method: string, path: string, body?: unknown) =>
      fetch(`${gateway.url}${path}`, {
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
    const { key } = await admin("POST", "/admin/keys", { name: "k", balance: 1_000_000 });
    const endpoint = await admin("POST", "/admin/webhooks", { url: receiver.url });
    const submitted = await postJson(gateway, "/v1/images/generations", key, {
      prompt: "tell me when done",
    }, { "x-gateway-async-task": "true" }).then((response) => response.json());
    const taskId = submitted.data.task_id;
    const [hung] = await receiver.waitFor(1);

    gateway.child.kill("SIGKILL");
    await gateway.child.status;
    receiver.mode = { kind: "ok" };
    await using restarted = await spawnGateway(env);
    gateway = restarted;

    const received = await receiver.waitFor(2, 20_000);
    const again = received[1];
    assertEquals(again.id, hung.id, "the same webhook-id, for the receiver to dedupe on");
    assertEquals(again.body, hung.body);
    assertEquals(verified(endpoint.secret, again).type, "task.succeeded");
    const deliveries = await eventually(
      () => admin("GET", `/admin/tasks/${taskId}/deliveries`).then((page) => page.data),
      (data) => data[0]?.status === "succeeded",
    );
    assertEquals(deliveries.length, 1);
    assertEquals(deliveries[0].status, "succeeded");
    assertOk(deliveries[0].attempts.at(-1).status_code === 200);
  },
);
