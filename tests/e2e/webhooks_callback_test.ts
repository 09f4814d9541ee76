/**
 * Per-task `callback_url`: allowed only where the endpoint covering the key says so, signed with
 * that endpoint's secret, refused (400, nothing charged) otherwise, never forwarded upstream.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { setupImages } from "../helpers/image_setup.ts";
import { setupVideo } from "../helpers/video_setup.ts";
import { squarePngWithTransparency } from "../helpers/png_fixtures.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import {
  createEndpoint,
  setupWebhookImages,
  submitImageTask,
  verified,
  waitForImageTask,
  WEBHOOK_TEST_ENV,
} from "../helpers/webhook_setup.ts";

Deno.test(
  "callback_url: an image task's events go to it too, signed with the endpoint's secret, not upstream",
  serverTest,
  async () => {
    await using operator = startWebhookReceiver();
    await using client = startWebhookReceiver();
    await using s = await setupWebhookImages();
    const endpoint = await createEndpoint(s, { url: operator.url, allow_task_callbacks: true });
    const taskId = await submitImageTask(s, {
      prompt: "a kite",
      n: 1,
      callback_url: client.url,
    });
    const view = await waitForImageTask(s, taskId);
    const [toClient] = await client.waitFor(1);
    const [toOperator] = await operator.waitFor(1);
    const payload = verified(endpoint.secret, toClient);
    assertEquals(payload.type, "task.succeeded");
    assertEquals(payload.data.task_id, view.task_id);
    assertEquals(payload, verified(endpoint.secret, toOperator));
    assertOk(toClient.id !== toOperator.id, "two deliveries, two webhook-ids");
    assertOk(!("callback_url" in s.openai!.requests[0].body), "never forwarded upstream");
    const deliveries = (await s.gw.admin("GET", `/admin/tasks/${taskId}/deliveries`)).body.data;
    const targets = deliveries.map((d: { callback_url: string | null }) => d.callback_url).sort();
    assertEquals(targets, [client.url, null]);
  },
);

Deno.test(
  "callback_url: refused with 400 in the OpenAI envelope, nothing charged, where no endpoint allows it",
  serverTest,
  async () => {
    await using client = startWebhookReceiver();
    await using s = await setupWebhookImages();
    const opening = await s.gw.balance(s.keyId);
    const submit = (body: Record<string, unknown>, asTask = true) =>
      postJson(
        s.gw,
        "/v1/images/generations",
        s.key,
        { prompt: "a kite", ...body },
        asTask ? { "x-gateway-async-task": "true" } : {},
      );
    const refused = async (response: Response, code: string) => {
      const body = await response.json();
      assertEquals(response.status, 400, JSON.stringify(body));
      assertEquals([body.error.code, body.error.param], [code, "callback_url"]);
      assertEquals(body.error.type, "invalid_request_error");
      return body.error.message as string;
    };
    // No endpoint at all.
    const none = await refused(
      await submit({ callback_url: client.url }),
      "callback_url_not_allowed",
    );
    assertOk(none.includes("poll"), none);
    // An all-keys endpoint allows callbacks, but the key's own endpoint (more specific) does not.
    await createEndpoint(s, { url: `${client.url}?all`, allow_task_callbacks: true });
    await createEndpoint(s, { url: `${client.url}?key`, key_id: s.keyId });
    await refused(await submit({ callback_url: client.url }), "callback_url_not_allowed");
    await refused(await submit({ callback_url: 42 }), "invalid_request");
    await refused(await submit({ callback_url: client.url }, false), "callback_url_not_allowed");
    await assertNothingCharged(s, opening, { untouched: true });
    assertEquals(s.upstreamRequests(), 0);
  },
);

Deno.test(
  "callback_url: a private or loopback address is 400 unless GATEWAY_WEBHOOK_ALLOW_PRIVATE=1",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const opening = await s.gw.balance(s.keyId);
    const created = await s.gw.admin("POST", "/admin/webhooks", {
      url: "https://hooks.example.com/in",
      allow_task_callbacks: true,
    });
    assertEquals(created.status, 201);
    for (const url of ["http://127.0.0.1:9/cb", "http://10.1.2.3/cb", "http://localhost/cb"]) {
      const response = await postJson(s.gw, "/v1/images/generations", s.key, {
        prompt: "a kite",
        callback_url: url,
      }, { "x-gateway-async-task": "true" });
      const body = await response.json();
      assertEquals(response.status, 400, url);
      assertEquals([body.error.code, body.error.param], ["invalid_callback_url", "callback_url"]);
      assertOk(body.error.message.includes("GATEWAY_WEBHOOK_ALLOW_PRIVATE"));
    }
    await assertNothingCharged(s, opening, { untouched: true });
  },
);

Deno.test(
  "callback_url: a video task takes it as a multipart field",
  serverTest,
  async () => {
    await using client = startWebhookReceiver();
    await using s = await setupVideo({ env: WEBHOOK_TEST_ENV });
    const created = await s.gw.admin("POST", "/admin/webhooks", {
      url: `${client.url}?operator`,
      events: ["task.succeeded"],
      allow_task_callbacks: true,
    });
    const response = await s.submit({
      model: "vid-2",
      prompt: "a red kite",
      duration: "5",
      callback_url: client.url,
    });
    const answer = await response.json();
    assertEquals(response.status, 200, JSON.stringify(answer));
    assertEquals(response.headers.get("x-gateway-ignored-fields"), null);
    const view = await s.waitForTask(answer.id);
    assertEquals(view.status, "SUCCESS");
    const received = await client.waitFor(2);
    for (const request of received) {
      const payload = verified(created.body.secret, request);
      assertEquals(payload.type, "task.succeeded");
      const { kind, billing, result_links, ...data } = payload.data;
      assertEquals(data, view);
      assertEquals(kind, "video");
      assertEquals(billing.billed, view.cost_units);
      assertEquals(result_links, [{ url: view.result_url, hosted: false, expires_at: null }]);
    }
  },
);

Deno.test(
  "callback_url: an image edit task takes it as a multipart field, not forwarded upstream",
  serverTest,
  async () => {
    await using client = startWebhookReceiver();
    await using s = await setupWebhookImages();
    const endpoint = await createEndpoint(s, {
      url: `${client.url}?operator`,
      events: ["task.succeeded"],
      allow_task_callbacks: true,
    });
    const form = new FormData();
    form.append("prompt", "add a kite");
    form.append("callback_url", client.url);
    form.append(
      "image",
      new Blob([squarePngWithTransparency(64) as Uint8Array<ArrayBuffer>]),
      "a.png",
    );
    const response = await postJson(s.gw, "/v1/images/edits", s.key, form, {
      "x-gateway-async-task": "1",
    });
    const answer = await response.json();
    assertEquals(response.status, 200, JSON.stringify(answer));
    assertEquals(response.headers.get("x-gateway-ignored-fields"), null);
    const view = await waitForImageTask(s, answer.data.task_id);
    assertEquals(view.action, "edits");
    const received = await client.waitFor(2);
    for (const request of received) {
      assertEquals(verified(endpoint.secret, request).data.task_id, answer.data.task_id);
    }
    assertOk(!("callback_url" in s.openai!.requests[0].body), "never forwarded upstream");
  },
);
