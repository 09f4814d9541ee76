import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { openCursor, sealCursor } from "../../../core/kv/list_cursor.ts";
import { MAX_CURSOR_CHARS } from "../../../core/kv/list_options.ts";

Deno.test("sealCursor/openCursor: a sealed cursor opens to the list's own cursor", () => {
  for (const inner of ["AmtleV8wMDAwMWFiY2RlZmdoAA==", "eyJhZnRlciI6InJlcV8xIn0", "a-b_c"]) {
    const sealed = sealCursor(inner);
    assertOk(/^[A-Za-z0-9_=.-]+$/.test(sealed), sealed);
    assertEquals(openCursor(sealed), { inner });
  }
});

Deno.test("openCursor: cut short, changed, made up or too long is refused with a reason", () => {
  const sealed = sealCursor("AmtleV8wMDAwMWFiY2RlZmdoAA==");
  const dot = sealed.lastIndexOf(".");
  const refused = [
    "AAAA",
    "AAAA.AAAAAAAAAAA",
    sealed.slice(0, dot),
    sealed.slice(0, -1),
    `${sealed.slice(0, dot - 4)}${sealed.slice(dot)}`,
    `B${sealed.slice(1)}`,
    `${sealed}A`,
    `!!!${sealed.slice(3)}`,
    sealCursor("A".repeat(MAX_CURSOR_CHARS + 1)),
  ];
  for (const cursor of refused) {
    const opened = openCursor(cursor);
    assertOk("problem" in opened && opened.problem.length > 20, cursor);
  }
});
