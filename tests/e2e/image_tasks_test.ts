/** Image tasks: X-Gateway-Async-Task, polling, hosted results, exactly-once money, restarts. */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../helpers/gateway.ts";
import { spawnGateway } from "../helpers/gateway_process.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { IMAGE_MODEL, IMAGE_PRICE, type ImageSetup, setupImages } from "../helpers/image_setup.ts";
import { squarePngWithTransparency } from "../helpers/png_fixtures.ts";
import { startOpenAIImagesUpstream } from "../upstream/openai_images.ts";

const FAST_TASKS = { GATEWAY_TASK_POLL_MS: "50" };

interface TaskView {
  task_id: string;
  status: string;
  status_raw: string;
  action: string;
  progress: string;
  submit_time: number;
  start_time: number | null;
  finish_time: number | null;
  result_url: string | null;
  image_urls: string[] | null;
  fail_reason: string | null;
}

async function getTask(baseUrl: string, key: string, id: string) {
  const response = await fetch(`${baseUrl}/v1/images/tasks/${id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: response.status, body: await response.json() };
}

async function waitForTask(baseUrl: string, key: string, id: string): Promise<TaskView> {
  for (let i = 0; i < 400; i++) {
    const { body } = await getTask(baseUrl, key, id);
    if (body.data?.status === "succeeded" || body.data?.status === "failed") return body.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${id} did not finish`);
}

async function submit(s: ImageSetup, body: Record<string, unknown>): Promise<string> {
  const response = await postJson(s.gw, "/v1/images/generations", s.key, body, {
    "x-gateway-async-task": "true",
  });
  assertEquals(response.status, 200);
  const answer = await response.json();
  assertEquals(answer.code, "success");
  assertEquals(answer.data.status, "submitted");
  return answer.data.task_id;
}

Deno.test(
  "image task: submitted at once, polled to success, hosted URLs, settled once",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", {
      env: FAST_TASKS,
      openai: { delayMs: 200 },
      key: { owner: "team-a" },
    });
    const taskId = await submit(s, { prompt: "a slow masterpiece", n: 2 });
    const task = await waitForTask(s.gw.url, s.key, taskId);
    assertEquals(task.status, "succeeded");
    assertEquals(task.status_raw, "SUCCESS");
    assertEquals(task.action, "generations");
    assertEquals(task.progress, "100%");
    assertOk(task.submit_time > 0 && task.start_time! >= task.submit_time);
    assertOk(task.finish_time! >= task.start_time!);
    assertEquals(task.image_urls!.length, 2);
    assertEquals(task.result_url, task.image_urls![0]);
    const served = [...s.openai!.images.values()];
    for (const url of task.image_urls!) {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
      assertOk(
        served.some((image) =>
          image.length === bytes.length && image.every((b, i) => b === bytes[i])
        ),
      );
    }
    assertEquals(
      await s.gw.assertLedgerInvariant(s.keyId),
      10_000_000 - 2 * IMAGE_PRICE.per_image,
    );
    const entries = await s.gw.ledger(s.keyId);
    assertEquals(entries.map((entry) => entry.type), ["credit", "hold", "settle"]);
    assertEquals(entries[1].ref, taskId);

    // Keys of one account with one owner label share tasks; another account's never do.
    const { account_id } = (await s.gw.admin("GET", `/admin/keys/${s.keyId}`)).body;
    const sameOwner = await s.gw.createKey({ owner: "team-a", account_id });
    assertEquals((await getTask(s.gw.url, sameOwner.key, taskId)).status, 200);
    const otherAccount = await s.gw.createKey({ owner: "team-a" });
    assertEquals((await getTask(s.gw.url, otherAccount.key, taskId)).status, 404);
    const stranger = await s.gw.createKey({ owner: "team-b", account_id });
    const hidden = await getTask(s.gw.url, stranger.key, taskId);
    assertEquals(hidden.status, 404);
    assertEquals(hidden.body.error.code, "task_not_found");
    assertEquals((await getTask(s.gw.url, s.key, "task_doesnotexist")).status, 404);
  },
);

Deno.test("image task: an edit task keeps its inputs and runs on gemini", serverTest, async () => {
  await using s = await setupImages("gemini", { env: FAST_TASKS });
  const form = new FormData();
  form.append("prompt", "add a hat");
  form.append(
    "image",
    new Blob([squarePngWithTransparency(64) as Uint8Array<ArrayBuffer>]),
    "a.png",
  );
  const response = await postJson(s.gw, "/v1/images/edits", s.key, form, {
    "x-gateway-async-task": "1",
  });
  const { data } = await response.json();
  const task = await waitForTask(s.gw.url, s.key, data.task_id);
  assertEquals(task.status, "succeeded");
  assertEquals(task.action, "edits");
  const parts = (s.gemini!.requests[0].body as {
    contents: Array<{ parts: Array<{ inlineData?: unknown }> }>;
  }).contents[0].parts;
  assertEquals(parts.filter((part) => part.inlineData).length, 1);
});

Deno.test(
  "image task: an upstream refusal fails the task and refunds the hold once",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: FAST_TASKS });
    s.openai!.fault = { kind: "status", status: 400, message: "Your prompt was rejected" };
    const taskId = await submit(s, { prompt: "forbidden" });
    const task = await waitForTask(s.gw.url, s.key, taskId);
    assertEquals(task.status, "failed");
    assertEquals(task.status_raw, "FAILURE");
    assertOk(task.fail_reason!.includes("Your prompt was rejected"), task.fail_reason!);
    await assertNothingCharged(s, 10_000_000);
    const types = (await s.gw.ledger(s.keyId)).map((entry) => entry.type);
    assertEquals(types, ["credit", "hold", "release"]);
  },
);

Deno.test(
  "image task: the gateway killed mid-task and restarted still completes it, billed once",
  serverTest,
  async () => {
    await using upstream = startOpenAIImagesUpstream({ delayMs: 60_000 });
    await using dir = await tempDir();
    const env = {
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_TASK_LEASE_MS: "1000",
      GATEWAY_TASK_POLL_MS: "100",
      GATEWAY_LOG_REQUESTS: "0",
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
    const { id: keyId, key } = await admin("POST", "/admin/keys", {
      name: "k",
      balance: 1_000_000,
    });
    const submitted = await postJson(gateway, "/v1/images/generations", key, {
      prompt: "survive a crash",
    }, { "x-gateway-async-task": "true" }).then((response) => response.json());
    const taskId = submitted.data.task_id;
    for (let i = 0; i < 200 && upstream.requests.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assertEquals(upstream.requests.length, 1, "the worker started the upstream call");

    gateway.child.kill("SIGKILL");
    await gateway.child.status;
    upstream.options.delayMs = 0;
    await using restarted = await spawnGateway(env);
    gateway = restarted;

    const task = await waitForTask(gateway.url, key, taskId);
    assertEquals(task.status, "succeeded");
    assertEquals(upstream.requests.length, 2, "run again once after the lease ran out");
    const ledger = await admin("GET", `/admin/ledger?key=${keyId}&order=asc`);
    const types = ledger.data.map((entry: { type: string }) => entry.type);
    assertEquals(types, ["credit", "hold", "settle"]);
    const record = await admin("GET", `/admin/keys/${keyId}`);
    assertEquals(record.balance, 1_000_000 - IMAGE_PRICE.per_image);
  },
);
