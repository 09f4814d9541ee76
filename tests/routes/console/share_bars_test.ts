import { assertEquals } from "../../helpers/assert.ts";
import { shareWidths } from "../../../routes/console/share_bars.tsx";

Deno.test("shareWidths() draws each value against the largest, in percent", () => {
  assertEquals(shareWidths([50, 100, 25]), [50, 100, 25]);
  assertEquals(shareWidths([1, 3]), [33.33, 100]);
  assertEquals(shareWidths([0, 0]), [0, 0], "nothing spent: no bars");
  assertEquals(shareWidths([-5, 10]), [0, 100], "a negative value draws nothing");
  assertEquals(shareWidths([]), []);
});
