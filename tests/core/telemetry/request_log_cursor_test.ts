import { assertEquals, assertThrows } from "../../helpers/assert.ts";
import { indexCursor, readRequestLogCursor } from "../../../core/telemetry/request_log_cursor.ts";
import { cursorRefusal, cursorShapeProblem } from "../../../core/kv/list_options.ts";

Deno.test("indexCursor() reads back, and has the shape of a cursor the API gives", () => {
  const cursor = indexCursor("req_0mwvczww80003UtAXtmPR");
  assertEquals(cursorShapeProblem(cursor), undefined);
  assertEquals(readRequestLogCursor(cursor), { after: "req_0mwvczww80003UtAXtmPR" });
});

Deno.test("readRequestLogCursor(): KV's cursors pass as they are; a forged index cursor is refused as KV refuses", () => {
  assertEquals(readRequestLogCursor("AnJlcV8x"), { kv: "AnJlcV8x" });
  assertEquals(readRequestLogCursor(undefined), {});
  for (const forged of ['{"after":1}', '{"after":"key_x"}', "{nope"]) {
    let refused: unknown;
    assertThrows(() => {
      try {
        readRequestLogCursor(btoa(forged).replace(/=+$/, ""));
      } catch (error) {
        refused = error;
        throw error;
      }
    });
    assertEquals(cursorRefusal(refused), "is not a cursor this API gave");
  }
});
