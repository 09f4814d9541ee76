/**
 * SIGTERM finishes with the store unreachable: a gateway with charges it cannot write and an
 * open stream to a hanging upstream stops within GATEWAY_SHUTDOWN_MS, saying what it left
 * unwritten, and exits. (Before the deadline, such a process waited for the store for ever.)
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway, terminated } from "../../helpers/gateway_process.ts";
import { remoteStoreTest } from "../../helpers/remote_store.ts";
import { chat, eventually, makeKey, setUpTextModel } from "../../helpers/outage_setup.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

remoteStoreTest(
  "SIGTERM with the store down: exits within its shutdown deadline, saying what it left unwritten",
  async (store) => {
    await using upstream = startOpenAIChatUpstream();
    const gateway = await spawnGateway({
      ...store.env,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      GATEWAY_STORE_DEADLINE_MS: "500",
      GATEWAY_SHUTDOWN_MS: "2000",
    });
    try {
      await setUpTextModel(gateway.url, upstream.baseUrl);
      const { key } = await makeKey(gateway.url, { balance: 10_000_000 });
      for (let i = 0; i < 3; i++) assertEquals((await chat(gateway.url, key)).status, 200);

      await store.stop();
      // Served from the lease this process holds; their charges cannot be written.
      assertEquals((await chat(gateway.url, key)).status, 200);
      upstream.faults.push({ kind: "hang" });
      const seen = upstream.requests.length;
      const open = chat(gateway.url, key, { stream: true }).catch(() => null);
      await eventually("the stream reached the upstream", () => upstream.requests.length > seen);

      assertEquals((await terminated(gateway)).code, 0);
      await open;
      const lines = gateway.lines.map((line) => JSON.parse(line));
      assertOk(lines.some((line) => line.msg === "stopped"), gateway.lines.join("\n"));
      const unwritten = lines.find((line) => line.msg === "charges left unwritten at shutdown");
      assertOk(unwritten && unwritten.units > 0, gateway.lines.join("\n"));
    } finally {
      try {
        gateway.child.kill("SIGKILL");
      } catch {
        // it exited
      }
      await gateway.child.status;
    }
  },
  serverTest,
);
