import { assertEquals } from "../../helpers/assert.ts";
import { coverageOf, uncoveredModels } from "../../../routes/console/model_coverage.ts";
import { channelRecord } from "../../helpers/channel_record.ts";

const model = { id: "m", groups: ["default"], enabled: true };

Deno.test("model coverage: served by an enabled channel of one of its groups, else uncovered", () => {
  const on = channelRecord("a");
  const off = channelRecord("b", { enabled: false });
  const other = channelRecord("c", { groups: ["vip"] });
  const elsewhere = channelRecord("d", { models: ["n"] });
  assertEquals(coverageOf(model, [on, off, elsewhere]), { listedBy: [on, off], uncovered: false });
  assertEquals(coverageOf(model, [off]), { listedBy: [off], uncovered: true });
  assertEquals(coverageOf(model, [other]).uncovered, true, "no channel for its groups");
  assertEquals(coverageOf({ ...model, groups: ["vip"] }, [other]).uncovered, false);
  assertEquals(coverageOf(model, []).uncovered, true);
  assertEquals(
    coverageOf({ ...model, enabled: false }, []).uncovered,
    false,
    "disabled: no warning",
  );
  const whole = channelRecord("e", {
    auto_disabled: {
      channel: { reason: "down", at: "", probes: 0, next_probe_at: 0 },
      by_key: {},
    },
  });
  assertEquals(coverageOf(model, [whole]).uncovered, true, "disabled whole by the gateway");
  assertEquals(uncoveredModels([model, { ...model, id: "n" }], [on]).map((m) => m.id), ["n"]);
});
