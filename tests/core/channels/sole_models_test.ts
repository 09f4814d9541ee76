import { assertEquals } from "../../helpers/assert.ts";
import { modelsOnlyServedBy } from "../../../core/channels/sole_models.ts";

const channel = (id: string, models: string[], enabled = true) => ({ id, models, enabled });

Deno.test("sole models: the models no other enabled channel serves, in the channel's order", () => {
  const channels = [
    channel("a", ["m3", "m1", "m2", "m1"]),
    channel("b", ["m1"]),
    channel("c", ["m2"], false),
  ];
  assertEquals(modelsOnlyServedBy(channels, "a"), ["m3", "m2"]);
  assertEquals(modelsOnlyServedBy(channels, "b"), []);
  assertEquals(modelsOnlyServedBy(channels, "c"), []);
  assertEquals(modelsOnlyServedBy(channels, "missing"), []);
});
