/**
 * The README's compatibility table, its Bedrock rows: each ✓ is a request through the gateway to
 * the Bedrock simulator, Claude through InvokeModel's Anthropic bodies (`bedrock`) and through the
 * Converse API (`bedrock (Converse)`).
 */

import { assertEquals } from "../helpers/assert.ts";
import { serverTest, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { checkRow, README, readTable } from "../helpers/compatibility_table.ts";
import { setupText } from "../helpers/text_setup.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_MODEL,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "../upstream/bedrock.ts";
import type { TextFormat } from "../../core/formats/neutral.ts";

const TARGETS: Record<
  string,
  { model: string; api: "invoke" | "converse"; channelFormat: TextFormat }
> = {
  "bedrock": { model: "m-bedrock", api: "invoke", channelFormat: "anthropic" },
  "bedrock (Converse)": {
    model: "m-bedrock-converse",
    api: "converse",
    channelFormat: "bedrock-converse",
  },
};

Deno.test("README compatibility table: every Bedrock ✓ works", serverTest, async () => {
  const rows = readTable(await Deno.readTextFile(README)).filter((row) => row.channel in TARGETS);
  assertEquals(rows.length, 8, "4 interfaces × Bedrock's two APIs");
  await using s = await setupText();
  await using bedrock = startBedrockUpstream();
  for (const [name, { model, api }] of Object.entries(TARGETS)) {
    await s.gw.putModel(model, { kind: "text", price: TEST_TEXT_PRICE, max_output_tokens: 2048 });
    await s.gw.addChannel({
      name,
      type: "bedrock",
      base_url: bedrock.endpoint,
      region: bedrock.region,
      bedrock_api: api,
      keys: [`${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`],
      models: [model],
      model_map: { [model]: BEDROCK_TEST_MODEL },
    });
  }
  for (const row of rows) {
    const { model, channelFormat } = TARGETS[row.channel];
    await checkRow(row, { url: s.gw.url, key: s.key, model, channelFormat });
  }
});
