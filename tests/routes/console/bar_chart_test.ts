import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { BarChart, barRects } from "../../../routes/console/bar_chart.tsx";

Deno.test("barRects: the tallest bar fills the height, a zero has none, a small value shows", () => {
  const rects = barRects([
    { label: "a", value: 0 },
    { label: "b", value: 1 },
    { label: "c", value: 1000 },
  ]);
  assertEquals(rects.map((rect) => rect.height), [0, 1, 120]);
  assertEquals(rects.map((rect) => rect.x), [0, 200, 400]);
  assertEquals(rects[2].y, 0);
});

Deno.test("barRects: all zero draws no bar and no NaN", () => {
  const rects = barRects([{ label: "a", value: 0 }, { label: "b", value: 0 }]);
  assertEquals(rects.map((rect) => [rect.height, rect.y]), [[0, 120], [0, 120]]);
});

Deno.test("BarChart: an SVG with a title for screen readers, a tooltip per bar, no style attribute", () => {
  const html = String(BarChart({
    id: "c",
    title: "Requests per day",
    points: [{ label: "2026-11-24", value: 3 }],
    format: String,
  }));
  assertOk(html.includes('role="img"') && html.includes('aria-labelledby="c-title"'), html);
  assertOk(html.includes("<title>2026-11-24: 3</title>"), html);
  assertOk(!html.includes("style="), html);
});
