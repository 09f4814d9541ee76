/**
 * A video task's status only moves forward — QUEUED → IN_PROGRESS → SUCCESS | FAILURE — and its
 * progress never drops, even when the upstream reports `queued` again after `running`.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { setupVideo, type VideoSetup } from "../helpers/video_setup.ts";

const RANK: Record<string, number> = { QUEUED: 0, IN_PROGRESS: 1, SUCCESS: 2, FAILURE: 2 };

async function submitted(s: VideoSetup, prompt: string): Promise<string> {
  const response = await s.submit({ model: "vid-2", prompt, duration: "4" });
  assertEquals(response.status, 200);
  return (await response.json()).id;
}

/** Waits until the upstream has answered `polls` polls of its only task. */
async function upstreamPolled(s: VideoSetup, polls: number): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const task = [...s.ark.tasks.values()][0];
    if (task && task.polls >= polls) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the upstream was not polled ${polls} times`);
}

Deno.test(
  "video status: the upstream's queued after running leaves the task IN_PROGRESS 50%",
  serverTest,
  async () => {
    await using s = await setupVideo({
      ark: { plan: () => ({ statuses: ["running", "queued", "queued", "queued", "queued"] }) },
    });
    const id = await submitted(s, "back and forth");
    // The fourth poll starts only once the worker has written what the third one said (queued).
    await upstreamPolled(s, 4);
    const { body } = await s.getTask(id);
    assertEquals(`${body.data.status} ${body.data.progress}`, "IN_PROGRESS 50%");
    const done = await s.waitForTask(id);
    assertEquals(`${done.status} ${done.progress}`, "SUCCESS 100%");
  },
);

Deno.test(
  "video status: watched throughout, statuses and progress never move backwards",
  serverTest,
  async () => {
    await using s = await setupVideo({
      ark: {
        plan: () => ({
          statuses: ["queued", "queued", "running", "queued", "running", "queued", "queued"],
        }),
      },
    });
    const id = await submitted(s, "watched");
    const seen: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const { body } = await s.getTask(id);
      const view = `${body.data.status} ${body.data.progress}`;
      if (seen.at(-1) !== view) seen.push(view);
      if (body.data.status === "SUCCESS") break;
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    assertEquals(seen.at(-1), "SUCCESS 100%", seen.join(" → "));
    assertOk(seen.includes("IN_PROGRESS 50%"), seen.join(" → "));
    for (let i = 1; i < seen.length; i++) {
      const [status, progress] = seen[i].split(" ");
      const [lastStatus, lastProgress] = seen[i - 1].split(" ");
      assertOk(RANK[status] >= RANK[lastStatus], seen.join(" → "));
      assertOk(parseFloat(progress) >= parseFloat(lastProgress), seen.join(" → "));
    }
    assertEquals([...s.ark.tasks.values()][0].polls, 8);
  },
);
