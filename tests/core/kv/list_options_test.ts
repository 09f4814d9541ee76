import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  cursorRefusal,
  cursorShapeProblem,
  MAX_CURSOR_CHARS,
} from "../../../core/kv/list_options.ts";

Deno.test("cursorShapeProblem: base64url cursors pass; anything else is named", () => {
  for (const cursor of ["AngxAA==", "Ib_wAAAAAAAA", "AAAA", "a-b_c"]) {
    assertEquals(cursorShapeProblem(cursor), undefined, cursor);
  }
  for (const cursor of ["!!!", "a b", "ab=c", "é", "A".repeat(MAX_CURSOR_CHARS + 1)]) {
    assertOk(cursorShapeProblem(cursor), cursor);
  }
});

Deno.test("cursorRefusal: reads KV's refusals of a cursor, and only those", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (let i = 0; i < 3; i++) await kv.set(["a", `x${i}`], i);
    const refusalOf = async (selector: Deno.KvListSelector, cursor: string) => {
      try {
        for await (const _ of kv.list(selector, { cursor })) { /* read */ }
      } catch (error) {
        return cursorRefusal(error);
      }
      return "listed";
    };
    assertOk((await refusalOf({ prefix: ["a"] }, "xyz"))?.includes("not a cursor"));
    assertOk(
      (await refusalOf({ start: ["a", "x1"], end: ["a", "x2"] }, "AAAA"))?.includes("belong"),
    );
    assertEquals(await refusalOf({ prefix: ["a"] }, "AngxAA=="), "listed");
    assertEquals(cursorRefusal(new TypeError("something else")), undefined);
    assertEquals(cursorRefusal(new Error("invalid cursor")), undefined);
  } finally {
    kv.close();
  }
});
