/**
 * An upstream stream event larger than GATEWAY_UPSTREAM_EVENT_MAX_MB (64 KiB here) is never
 * buffered whole: the stream is treated as broken — the client gets its interface's stream error
 * and, as for any broken stream, nothing is charged. Asserted by counting what the client got,
 * never by timing or memory. An event under the cap passes as it came.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  setupText,
  type TextChannelType,
  type TextSetup,
} from "../../helpers/text_setup.ts";
import { INBOUND, send } from "../../helpers/text_inbound.ts";

const CAP = 64 * 1024;
const ENV = { GATEWAY_UPSTREAM_EVENT_MAX_MB: String(CAP / (1024 * 1024)) };

/** The frame of `type`'s stream that is sent with `bytes` of padding: one past its first. */
function oversize(s: TextSetup, type: TextChannelType, bytes: number, first = false): void {
  const kind = "oversized_event" as const;
  if (type === "openai") s.chat.faults.push({ kind, afterChunks: first ? 0 : 2, bytes });
  if (type === "openai-responses") {
    s.responses.faults.push({ kind, afterFrames: first ? 0 : 4, bytes });
  }
  if (type === "anthropic") s.anthropic.faults.push({ kind, afterFrames: first ? 0 : 4, bytes });
  if (type === "gemini") s.gemini.faults.push({ kind, afterFrames: first ? 0 : 1, bytes });
}

for (const [name, inbound] of Object.entries(INBOUND)) {
  Deno.test(
    `${name}: an upstream event over the cap, from every channel type, is a broken stream; no charge`,
    serverTest,
    async () => {
      await using s = await setupText({ env: ENV });
      for (const type of CHANNEL_TYPES) {
        oversize(s, type, 3 * CAP);
        const response = await send(s, inbound, type, true);
        assertEquals(response.status, 200, `${name} ← ${type}`);
        const text = await response.text();
        assertOk(inbound.streamError(text), `${name} ← ${type}: ${text.slice(-400)}`);
        assertOk(
          text.length < CAP,
          `${name} ← ${type}: ${text.length} characters reached the client`,
        );
      }
      await s.gw.settle();
      const records = (await s.gw.admin("GET", "/admin/requests?limit=10")).body.data;
      assertEquals(records.map((record: { outcome: string }) => record.outcome), [
        "upstream_error",
        "upstream_error",
        "upstream_error",
        "upstream_error",
      ]);
      await assertNothingCharged(s, 100_000_000);
    },
  );
}

Deno.test(
  "an oversized first event is a failed attempt before any byte: 502 too_large, no charge",
  serverTest,
  async () => {
    await using s = await setupText({ env: ENV });
    for (const type of CHANNEL_TYPES) {
      oversize(s, type, 3 * CAP, true);
      const response = await send(s, INBOUND.chat, type, true);
      const body = await response.json();
      assertEquals(response.status, 502, `chat ← ${type}: ${JSON.stringify(body)}`);
      assertOk(body.error.message.includes("too_large"), body.error.message);
    }
    await s.gw.settle();
    const records = (await s.gw.admin("GET", "/admin/requests?limit=10")).body.data;
    for (const record of records) {
      assertEquals(record.upstream_attempts[0].error_class, "too_large");
    }
    await assertNothingCharged(s, 100_000_000);
  },
);

Deno.test(
  "an upstream event just under the cap passes whole, from every channel type",
  serverTest,
  async () => {
    await using s = await setupText({ env: ENV });
    for (const type of CHANNEL_TYPES) {
      for (const [name, inbound] of Object.entries(INBOUND)) {
        oversize(s, type, CAP - 4096);
        const response = await send(s, inbound, type, true);
        const text = await response.text();
        assertEquals(response.status, 200);
        assertOk(!inbound.streamError(text), `${name} ← ${type}: ${text.slice(-400)}`);
      }
    }
  },
);
