/**
 * A video submission whose answer never came (the channel's timeout passed while the upstream was
 * still making the task) is never submitted twice: not on another channel, not at a later run.
 * Ark has no idempotency key, so the task is held for the operator (`submission_unknown` with
 * `needs_operator`), who attaches the upstream task they find; it is then polled and billed once.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../helpers/gateway.ts";
import { consoleClient } from "../helpers/console_client.ts";
import { ARK_MODEL, moneyMoves, PER_SECOND, setupVideo } from "../helpers/video_setup.ts";
import { startArkVideoUpstream } from "../upstream/ark_video.ts";

const MODELS = ["vid-2", "vid-2-480p", "vid-2-1080p", "vid-2-4k", "vid-2-cheap"];

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the state did not come");
}

Deno.test(
  "video submission: a timed-out create is not submitted twice; held for the operator, then billed once",
  serverTest,
  async () => {
    await using s = await setupVideo({ channel: { timeout_ms: 300, priority: 10 } });
    await using other = startArkVideoUpstream();
    await s.gw.addChannel({
      name: "ark-2",
      type: "ark-video",
      base_url: other.baseUrl,
      keys: ["ark-upstream-test"],
      models: MODELS,
      model_map: { "vid-2": ARK_MODEL },
    });
    s.ark.faults.push({ on: "create", kind: "slow", ms: 1_000 });

    const response = await s.submit({ model: "vid-2", prompt: "a slow start" });
    const submitted = await response.json();
    assertEquals(response.status, 200, JSON.stringify(submitted));
    const id = submitted.id as string;

    const held = await until(
      async () => (await s.gw.admin("GET", `/admin/tasks/${id}`)).body,
      (task) => task.submission_unknown?.needs_operator === true,
    );
    assertEquals(held.submission_unknown.channel_id, held.channel_id);
    assertOk(/no idempotency key/.test(held.submission_unknown.reason), held.submission_unknown);
    // The slow create made its task after the gateway gave up on it.
    await until(() => Promise.resolve(s.ark.tasks.size), (size) => size === 1);
    // Another pass of due work submits nothing: the task is not due until its timeout.
    await s.gw.running.sweeps.find((sweep) => sweep.name === "due-tasks")!.run();
    assertEquals(s.ark.creates, 1, "one create on the first channel");
    assertEquals(other.creates, 0, "never sent to the second channel");
    const { body: seen } = await s.getTask(id);
    assertOk(seen.data.status !== "FAILURE" && seen.data.status !== "SUCCESS", seen.data.status);
    assertEquals(await moneyMoves(s), [["hold", -5 * PER_SECOND]], "held, nothing settled");
    const console = consoleClient(s.gw.url);
    await (await console.signIn(ADMIN_TOKEN)).body?.cancel();
    const detail = await (await console.get(`/console/tasks/${id}`)).text();
    assertOk(detail.includes("Held for the operator"), "the console shows the hold");
    const list = await (await console.get("/console/tasks")).text();
    assertOk(list.includes("held for the operator"), "and the task list");

    // The operator's answers: a bad body is a 400 in the admin envelope; the found task is attached.
    const bad = await s.gw.admin("POST", `/admin/tasks/${id}/resolve`, { upstream_id: "" });
    assertEquals(bad.status, 400, JSON.stringify(bad.body));
    const upstreamId = [...s.ark.tasks.keys()][0];
    const resolved = await s.gw.admin("POST", `/admin/tasks/${id}/resolve`, {
      upstream_id: upstreamId,
    });
    assertEquals(resolved.status, 200, JSON.stringify(resolved.body));
    assertEquals(resolved.body.submission_unknown, null);
    const task = await s.waitForTask(id);
    assertEquals(task.status, "SUCCESS");
    assertEquals(s.ark.creates + other.creates, 1, "submitted once in all");
    assertEquals(await moneyMoves(s), [["hold", -5 * PER_SECOND], ["settle", 0]]);
    const again = await s.gw.admin("POST", `/admin/tasks/${id}/resolve`, { resubmit: true });
    assertEquals(again.status, 409, JSON.stringify(again.body));
    await s.gw.assertLedgerInvariant(s.keyId);
  },
);
