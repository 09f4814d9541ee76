/**
 * SIGTERM with a speech answer still relaying at the shutdown deadline: the gateway cuts the
 * download (an error, not a short file), releases the hold, logs it as `gateway_shutdown` with
 * cost 0 and exits; the next boot on the same KV finds the wallet untouched and no hold open.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { adminCall, eventually, makeKey } from "../../helpers/outage_setup.ts";
import { startOpenAISpeechUpstream } from "../../upstream/openai_speech.ts";
import { SPEECH_MODEL, SPEECH_PRICE } from "../../helpers/speech_setup.ts";

/** Far beyond the shutdown deadline: a process still running then did not finish. */
const GIVE_UP_MS = 120_000;
const OPENING = 1_000_000;

Deno.test(
  "SIGTERM: a speech answer relaying at the shutdown deadline is cut, released and logged",
  serverTest,
  async () => {
    await using upstream = startOpenAISpeechUpstream();
    // The audio after its first chunk waits until the test ends: it outlasts the deadline.
    let open!: () => void;
    upstream.gate = new Promise<void>((resolve) => open = resolve);
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
      const model = await adminCall(first.url, "PUT", `/admin/models/${SPEECH_MODEL}`, {
        kind: "audio",
        price: SPEECH_PRICE,
      });
      assertEquals(model.status, 200, JSON.stringify(model.body));
      const channel = await adminCall(first.url, "POST", "/admin/channels", {
        name: "speech",
        type: "openai",
        base_url: upstream.baseUrl,
        keys: ["sk-upstream-test"],
        models: [SPEECH_MODEL],
        model_map: { [SPEECH_MODEL]: "gpt-4o-mini-tts" },
      });
      assertEquals(channel.status, 201, JSON.stringify(channel.body));
      const made = await makeKey(first.url, { balance: OPENING });
      keyId = made.id;
      const response = await fetch(`${first.url}/v1/audio/speech`, {
        method: "POST",
        headers: { authorization: `Bearer ${made.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: SPEECH_MODEL,
          input: "A sentence long enough to be spoken for a few seconds, and then some more.",
          voice: "alloy",
          response_format: "wav",
        }),
      });
      assertEquals(response.status, 200);
      const reader = response.body!.getReader();
      const firstChunk = await reader.read();
      assertOk(!firstChunk.done && firstChunk.value.length > 0, "the first audio arrived");

      first.child.kill("SIGTERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const exited = await Promise.race([
        first.child.status,
        new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), GIVE_UP_MS)),
      ]);
      clearTimeout(timer);
      assertOk(exited !== null, "the gateway was still running long after its shutdown deadline");
      assertEquals(exited.code, 0);
      // The download is broken off, never ended as if whole.
      let broken = false;
      try {
        while (!(await reader.read()).done) {
          // what came before the cut
        }
      } catch {
        broken = true;
      }
      assertOk(broken, "the cut download ended as if whole");
      assertOk(
        first.lines.some((line) => line.includes("streams ended at the shutdown deadline")),
        first.lines.join("\n"),
      );
    } finally {
      open();
      try {
        first.child.kill("SIGKILL");
      } catch {
        // exited
      }
      await first.child.status;
    }

    await using second = await spawnGateway(env);
    const key = await adminCall(second.url, "GET", `/admin/keys/${keyId}`);
    assertEquals(key.body.balance, OPENING);
    const ledger = await adminCall(second.url, "GET", `/admin/ledger?key=${keyId}&order=asc`);
    const types = ledger.body.data.map((entry: { type: string }) => entry.type);
    assertEquals(types.filter((type: string) => type === "charge" || type === "settle"), []);
    let record: { outcome?: string; cost?: number } | undefined;
    await eventually("the speech request logged", async () => {
      record = (await adminCall(second.url, "GET", `/admin/requests?key=${keyId}`)).body.data[0];
      return record !== undefined;
    });
    assertEquals([record!.outcome, record!.cost], ["gateway_shutdown", 0]);
  },
);
