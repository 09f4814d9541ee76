import { assertEquals } from "../../helpers/assert.ts";
import { channelKeysPatchOf, channelPatchOf } from "../../../routes/console/channel_form.ts";

Deno.test("channel form: fields become the PATCH body; bad numbers are left for the schema", () => {
  assertEquals(
    channelPatchOf({ name: " a ", priority: "-2", weight: "x", groups: "a, b,,", models: "m\nn" }),
    { name: "a", priority: -2, weight: "x", groups: ["a", "b"], models: ["m", "n"] },
  );
  assertEquals(channelPatchOf({}), {});
});

Deno.test("channel keys form: add one, replace all, remove by fingerprint", () => {
  assertEquals(channelKeysPatchOf({ action: "add", key: " k1 " }), { add_keys: ["k1"] });
  assertEquals(channelKeysPatchOf({ action: "add", key: "" }), { add_keys: [] });
  assertEquals(channelKeysPatchOf({ action: "replace", keys: "a\nb" }), { keys: ["a", "b"] });
  assertEquals(channelKeysPatchOf({ action: "remove", fingerprint: "3f2a9c1e" }), {
    remove_keys: ["3f2a9c1e"],
  });
});
