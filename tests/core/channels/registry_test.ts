import { Registry } from "../../../core/channels/registry.ts";
import { channelInputSchema } from "../../../core/channels/channel_schema.ts";
import { SecretBox } from "../../../core/channels/secret_box.ts";
import { CHANNEL_RULES } from "../../../core/providers/provider_table.ts";
import { assertEquals } from "../../helpers/assert.ts";

Deno.test("registry: channelsOf lists the channels of one model, and follows every change", async () => {
  using kv = await Deno.openKv(":memory:");
  const registry = new Registry(kv, await SecretBox.fromRaw(new Uint8Array(32)), {
    rules: CHANNEL_RULES,
  });
  await registry.reload();
  const channel = (name: string, models: string[]) =>
    channelInputSchema.parse({
      name,
      type: "openai",
      base_url: "https://upstream.example/v1",
      keys: ["sk-x"],
      models,
    });
  const a = await registry.createChannel(channel("a", ["gpt-4o-mini"]), { createModels: true });
  const b = await registry.createChannel(channel("b", ["gpt-4o-mini", "m2"]), {
    createModels: true,
  });
  const names = (model: string) => registry.channelsOf(model).map((found) => found.name);
  assertEquals(names("gpt-4o-mini"), ["a", "b"]);
  assertEquals(names("m2"), ["b"]);
  assertEquals(names("unknown"), []);
  await registry.updateChannel(a.id, { models: ["m2"] }, { createModels: true });
  assertEquals(names("gpt-4o-mini"), ["b"]);
  assertEquals(names("m2"), ["a", "b"]);
  await registry.deleteChannel(b.id);
  assertEquals(names("gpt-4o-mini"), []);
});
