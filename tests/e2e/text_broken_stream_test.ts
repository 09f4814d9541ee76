/**
 * A stream the upstream breaks is free, whatever usage it sent before breaking: every inbound
 * interface against every channel type (pass-through and converted relays), the upstream sending
 * its usage and then, before the stream's end, dropping the connection, sending its in-stream
 * error event, or sending a malformed frame and ending. The client sees its
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
import type { StreamBreak } from "../upstream/text_script.ts";

/** The upstream's usage in place of a frame after some text, then the stream breaks `how`. */
function usageThenBreak(s: TextSetup, type: TextChannelType, how: StreamBreak) {
  const kind = "usage_then_break";
  if (type === "openai") s.chat.faults.push({ kind, afterChunks: 3, how });
  if (type === "openai-responses") s.responses.faults.push({ kind, afterFrames: 6, how });
  if (type === "anthropic") s.anthropic.faults.push({ kind, afterFrames: 5, how });
  if (type === "gemini") s.gemini.faults.push({ kind, afterFrames: 1, how });
}

Deno.test(
  "a stream that breaks after a usage chunk is free: every interface × every channel type × every break",
  serverTest,
  async () => {
    await using s = await setupText();
    const ids: string[] = [];
    for (const how of ["drop", "error_event", "malformed"] as const) {
      for (const [name, inbound] of Object.entries(INBOUND)) {
        for (const type of CHANNEL_TYPES) {
          usageThenBreak(s, type, how);
          const response = await send(s, inbound, type, true);
          assertEquals(response.status, 200);
          const text = await response.text();
          const where = `${name} ← ${type} (${how})`;
          assertOk(text.includes("Ech"), `${where}: some text was relayed first: ${text}`);
          assertOk(inbound.streamError(text), `${where}: ${text.slice(-300)}`);
          ids.push(`${where} ${response.headers.get("x-request-id")}`);
        }
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
