import { assertEquals } from "../helpers/assert.ts";
import { formatSpread, spreadOf } from "../../bench/spread.ts";

Deno.test("spreadOf: median of odd and even counts, min and max", () => {
  assertEquals(spreadOf([3, 1, 2]), { median: 2, min: 1, max: 3, values: [3, 1, 2] });
  assertEquals(spreadOf([4, 1, 2, 3]).median, 2.5);
  assertEquals(formatSpread(spreadOf([0.5, 0.4, 0.6]), { digits: 2 }), "0.50 (0.40 to 0.60)");
  assertEquals(formatSpread(spreadOf([0.25]), { digits: 1, unit: " ms" }), "0.3 ms");
});
