/**
 * The README's compatibility table, its Azure rows: each ✓ is a request through the gateway to
 * the Azure OpenAI simulator, on a deployment of each Azure channel type.
 */

import { assertEquals } from "../helpers/assert.ts";
import { serverTest, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import { checkRow, README, readTable } from "../helpers/compatibility_table.ts";
import { setupText } from "../helpers/text_setup.ts";
import { startAzureOpenAIUpstream } from "../upstream/azure_openai.ts";
import type { TextFormat } from "../../core/formats/neutral.ts";

const TARGETS: Record<string, { model: string; deployment: string; channelFormat: TextFormat }> = {
  "azure-openai": { model: "m-azure", deployment: "chat-prod", channelFormat: "openai-chat" },
  "azure-openai-responses": {
    model: "m-azure-responses",
    deployment: "resp-prod",
    channelFormat: "openai-responses",
  },
};

Deno.test("README compatibility table: every Azure ✓ works", serverTest, async () => {
  const rows = readTable(await Deno.readTextFile(README)).filter((row) => row.channel in TARGETS);
  assertEquals(rows.length, 8, "4 interfaces × the two Azure channel types");
  await using s = await setupText();
  await using azure = startAzureOpenAIUpstream({ apiKeys: ["azure-key"] });
  for (const [type, { model, deployment }] of Object.entries(TARGETS)) {
    await s.gw.putModel(model, { kind: "text", price: TEST_TEXT_PRICE, max_output_tokens: 2048 });
    await s.gw.addChannel({
      name: type,
      type,
      base_url: azure.endpoint,
      api_version: "2025-04-01-preview",
      keys: ["azure-key"],
      models: [model],
      model_map: { [model]: deployment },
    });
  }
  for (const row of rows) {
    const { model, channelFormat } = TARGETS[row.channel];
    await checkRow(row, { url: s.gw.url, key: s.key, model, channelFormat });
  }
});
