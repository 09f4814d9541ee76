/**
 * The README's compatibility table, its `vertex` rows: each ✓ is a request through the gateway
 * to the Vertex simulator, a Gemini model (`vertex (Gemini)`) or a Claude one (`vertex (Claude)`).
 */

import { assertEquals } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { checkRow, README, readTable } from "../helpers/compatibility_table.ts";
import { setupVertex, VERTEX_CLAUDE, VERTEX_GEMINI } from "../helpers/vertex_setup.ts";
import type { TextFormat } from "../../core/formats/neutral.ts";

const TARGETS: Record<string, { model: string; channelFormat: TextFormat }> = {
  "vertex (Gemini)": { model: VERTEX_GEMINI, channelFormat: "gemini" },
  "vertex (Claude)": { model: VERTEX_CLAUDE, channelFormat: "anthropic" },
};

Deno.test("README compatibility table: every vertex ✓ works", serverTest, async () => {
  const rows = readTable(await Deno.readTextFile(README)).filter((row) => row.channel in TARGETS);
  assertEquals(rows.length, 8, "4 interfaces × Gemini and Claude on Vertex");
  await using s = await setupVertex();
  for (const row of rows) {
    await checkRow(row, { url: s.gw.url, key: s.key, ...TARGETS[row.channel] });
  }
  assertEquals(s.sim.tokenCalls.issued, 1);
});
