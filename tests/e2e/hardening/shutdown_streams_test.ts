/**
 * SIGTERM with a stream still open at the shutdown deadline: the gateway ends it, bills what it
 * delivered (logged as `gateway_shutdown`), writes that charge and exits; the next boot on the
 * same KV finds the money exact.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway, terminated } from "../../helpers/gateway_process.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { adminCall, eventually, makeKey, setUpTextModel } from "../../helpers/outage_setup.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

const OPENING = 1_000_000;

Deno.test(
  "SIGTERM: a stream open at the shutdown deadline is ended, billed for what came, and logged",
  serverTest,
  async () => {
    // One character a minute after the first: the stream outlasts any shutdown deadline.
    await using upstream = startOpenAIChatUpstream({ chunkDelayMs: 60_000, chunkSize: 1 });
    await using dir = await tempDir();
    const env = {
      GATEWAY_KV: `${dir.path}/g.kv`,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_LOG_REQUESTS: "0",
      GATEWAY_SHUTDOWN_MS: "2000",
    };
    const first = await spawnGateway(env);
    let keyId = "";
    try {
      await setUpTextModel(first.url, upstream.baseUrl);
      const made = await makeKey(first.url, { balance: OPENING });
      keyId = made.id;
      const response = await fetch(`${first.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${made.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          stream: true,
          messages: [{ role: "user", content: "count" }],
        }),
      });
      assertEquals(response.status, 200);
      const reader = response.body!.getReader();
      const firstChunk = await reader.read();
      assertOk(!firstChunk.done, "the stream delivered its first chunk");

      assertEquals((await terminated(first)).code, 0);
      // The client's stream ends (closed by the gateway, or cut with its process).
      while (!(await reader.read().catch(() => ({ done: true }))).done) {
        // drain what is left
      }
      assertOk(
        first.lines.some((line) => line.includes("streams ended at the shutdown deadline")),
        first.lines.join("\n"),
      );
    } finally {
      try {
        first.child.kill("SIGKILL");
      } catch {
        // exited
      }
      await first.child.status;
    }

    await using second = await spawnGateway(env);
    const ledger = await adminCall(second.url, "GET", `/admin/ledger?key=${keyId}&order=asc`);
    const charges = ledger.body.data.filter((entry: { type: string }) => entry.type === "charge");
    assertEquals(charges.length, 1, JSON.stringify(ledger.body.data));
    assertOk(charges[0].cost > 0, JSON.stringify(charges[0]));
    const key = await adminCall(second.url, "GET", `/admin/keys/${keyId}`);
    assertEquals(key.body.balance, OPENING - charges[0].cost);
    let record: { outcome?: string; cost?: number } | undefined;
    await eventually("the stream's request logged", async () => {
      record = (await adminCall(second.url, "GET", `/admin/requests?key=${keyId}`)).body.data[0];
      return record !== undefined;
    });
    assertEquals([record!.outcome, record!.cost], ["gateway_shutdown", charges[0].cost]);
  },
);
