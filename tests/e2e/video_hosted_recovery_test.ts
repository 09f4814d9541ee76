/**
 * A hosted video result is stored once: a process killed right after storing the downloaded
 * video (before the task ended) leaves a task whose next run polls again, finds the video
 * already stored under the task's media id, downloads nothing more, and settles once.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../helpers/gateway.ts";
import { spawnGateway } from "../helpers/gateway_process.ts";
import { tempDir } from "../helpers/temp_dir.ts";
import { adminOf, FAST_VIDEO_ENV, PER_SECOND, videoClient } from "../helpers/video_setup.ts";
import { startOpenAIVideoUpstream } from "../upstream/openai_video.ts";
import { hostedBytes } from "../helpers/hosted_video_setup.ts";

for (const crashAt of ["video.after_result_stored", "video.before_end"]) {
  Deno.test(
    `openai-video: killed at ${crashAt}, the restart stores and bills the video once`,
    serverTest,
    async () => {
      await using sora = startOpenAIVideoUpstream();
      await using dir = await tempDir();
      const env = {
        ...FAST_VIDEO_ENV,
        GATEWAY_KV: `${dir.path}/g.kv`,
        GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
        GATEWAY_TASK_LEASE_MS: "1000",
        GATEWAY_LOG_REQUESTS: "0",
      };
      let keyId: string;
      let key: string;
      let id: string;
      {
        await using crashing = await spawnGateway({ ...env, GATEWAY_CRASH_AT: crashAt });
        const admin = adminOf(crashing.url, ADMIN_TOKEN);
        await admin("PUT", "/admin/models/vid-hosted", {
          kind: "video",
          price: { per_second: PER_SECOND },
        });
        await admin("POST", "/admin/channels", {
          name: "sora",
          type: "openai-video",
          base_url: sora.baseUrl,
          keys: ["sora-upstream-test"],
          models: ["vid-hosted"],
          model_map: { "vid-hosted": "sora-2" },
        });
        ({ id: keyId, key } = await admin("POST", "/admin/keys", {
          name: "k",
          balance: 100_000_000,
        }));
        const response = await videoClient(crashing.url, key).submit({
          model: "vid-hosted",
          prompt: "crash",
          duration: "4",
        });
        const body = await response.json();
        assertEquals(response.status, 200, JSON.stringify(body));
        id = body.id;
        const status = await crashing.child.status;
        assertEquals(status.signal, "SIGKILL", "the process died at the crash point");
      }
      assertEquals(sora.downloads, 1, "the video was downloaded before the crash");

      await using restarted = await spawnGateway(env);
      const task = await videoClient(restarted.url, key).waitForTask(id);
      assertEquals(task.status, "SUCCESS", task.fail_reason ?? "");
      assertEquals(sora.downloads, 1, "the restart found the stored video");
      const video = [...sora.videos.values()][0];
      // The address is made from the public URL the task was submitted to (the first process's).
      const path = new URL(task.result_url!).pathname;
      assertOk(path.startsWith("/media/med_"), task.result_url!);
      assertEquals(await hostedBytes(`${restarted.url}${path}`), video.bytes);
      const admin = adminOf(restarted.url, ADMIN_TOKEN);
      const ledger = await admin("GET", `/admin/ledger?key=${keyId}&order=asc`);
      assertEquals(
        ledger.data.map((entry: { type: string; amount: number }) => [entry.type, entry.amount]),
        [["credit", 100_000_000], ["hold", -4 * PER_SECOND], ["settle", 0]],
      );
      assertEquals(
        (await admin("GET", `/admin/keys/${keyId}`)).balance,
        100_000_000 - 4 * PER_SECOND,
      );
    },
  );
}
