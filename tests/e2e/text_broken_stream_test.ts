/**
 * A stream the upstream breaks is free, whatever usage it sent before breaking: every inbound
 * interface against every channel type (pass-through and converted relays), the upstream sending
 * its usage and then dropping the connection before the stream's end. The client sees its
 * format's error event; the ledger takes nothing; the request log says the stream broke.
 */

import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  setupText,
  type TextChannelType,
  type TextSetup,
} from "../helpers/text_setup.ts";
import { INBOUND, send } from "../helpers/text_inbound.ts";

/** The upstream's usage in place of a frame after some text, then a dropped connection. */
function usageThenDie(s: TextSetup, type: TextChannelType) {
  if (type === "openai") s.chat.faults.push({ kind: "usage_then_die", afterChunks: 3 });
  if (type === "openai-responses") {
    s.responses.faults.push({ kind: "usage_then_die", afterFrames: 6 });
  }
  if (type === "anthropic") s.anthropic.faults.push({ kind: "usage_then_die", afterFrames: 5 });
  if (type === "gemini") s.gemini.faults.push({ kind: "usage_then_die", afterFrames: 1 });
}

Deno.test(
  "a stream that breaks after a usage chunk is free: every interface × every channel type",
  serverTest,
  async () => {
    await using s = await setupText();
    const ids: string[] = [];
    for (const [name, inbound] of Object.entries(INBOUND)) {
      for (const type of CHANNEL_TYPES) {
        usageThenDie(s, type);
        const response = await send(s, inbound, type, true);
        assertEquals(response.status, 200);
        const text = await response.text();
        const where = `${name} ← ${type}`;
        assertOk(text.includes("Ech"), `${where}: some text was relayed first: ${text}`);
        assertOk(inbound.streamError(text), `${where}: ${text.slice(-300)}`);
        ids.push(`${where} ${response.headers.get("x-request-id")}`);
      }
    }
    await s.gw.settle();
    const billed: string[] = [];
    for (const line of ids) {
      const id = line.split(" ").at(-1)!;
      const record = (await s.gw.admin("GET", `/admin/requests/${id}`)).body;
      const seen = [record.outcome, record.error_code, record.cost, record.receipt ?? null];
      const broken = ["upstream_error", "upstream_stream_interrupted", 0, null];
      if (JSON.stringify(seen) !== JSON.stringify(broken)) {
        billed.push(`${line}: ${JSON.stringify(seen.slice(0, 3))}`);
      }
    }
    assertEquals(billed, [], `billed or not logged as broken:\n${billed.join("\n")}`);
    const moves = (await s.gw.ledger(s.keyId)).filter((entry) => entry.type !== "credit");
    assertEquals(moves.filter((entry) => entry.type === "settle" || entry.type === "charge"), []);
    await assertNothingCharged(s, 100_000_000);
  },
);
