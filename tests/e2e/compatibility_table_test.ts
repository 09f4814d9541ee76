/**
 * The README's compatibility table is checked here, row by row, for the vendors' own channel
 * types (tests/helpers/compatibility_table.ts makes the requests of a row).
 */

import { assertEquals } from "../helpers/assert.ts";
import { serverTest } from "../helpers/gateway.ts";
import { MODEL_OF, setupText, type TextChannelType } from "../helpers/text_setup.ts";
import { checkRow, README, readTable } from "../helpers/compatibility_table.ts";
import type { TextFormat } from "../../core/formats/neutral.ts";

const FORMAT_OF_CHANNEL: Record<TextChannelType, TextFormat> = {
  openai: "openai-chat",
  "openai-responses": "openai-responses",
  anthropic: "anthropic",
  gemini: "gemini",
};

Deno.test("README compatibility table: every ✓ works", serverTest, async () => {
  const rows = readTable(await Deno.readTextFile(README)).filter((row) => row.channel in MODEL_OF);
  assertEquals(rows.length, 16, "4 interfaces × 4 channel types");
  await using s = await setupText();
  for (const row of rows) {
    const channel = row.channel as TextChannelType;
    await checkRow(row, {
      url: s.gw.url,
      key: s.key,
      model: MODEL_OF[channel],
      channelFormat: FORMAT_OF_CHANNEL[channel],
    });
  }
});
