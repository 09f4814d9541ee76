import { assertEquals } from "../../helpers/assert.ts";
import { groupInputOf, groupNameOf } from "../../../routes/console/group_form.ts";

Deno.test("groupInputOf() reads a written number, passes text on, leaves an empty multiplier out", () => {
  assertEquals(groupInputOf({ price_multiplier: " 0.8 ", description: " good " }), {
    description: "good",
    price_multiplier: 0.8,
  });
  assertEquals(groupInputOf({ price_multiplier: "-1" }), { description: "", price_multiplier: -1 });
  assertEquals(groupInputOf({ price_multiplier: "1.23456" }).price_multiplier, 1.23456);
  assertEquals(groupInputOf({ price_multiplier: "lots" }).price_multiplier, "lots");
  assertEquals(groupInputOf({ price_multiplier: "1e3" }).price_multiplier, "1e3");
  assertEquals(groupInputOf({ price_multiplier: "", description: "" }), { description: "" });
});

Deno.test("groupNameOf() trims the typed name", () => {
  assertEquals(groupNameOf({ name: " vip " }), "vip");
  assertEquals(groupNameOf({}), "");
});
