import {
  headerList,
  headerListItem,
  isWritableHeaderValue,
  retryAfterValue,
} from "../../../core/util/header_value.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";

const CONTROLS = [...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)), "\x7f"];

Deno.test("header value: every control character and non-ASCII name is encoded to visible ASCII, and decodes back", () => {
  for (const char of [...CONTROLS, "\x80", "é", "模", "🦊", "\u2028", " ", "%", ","]) {
    const name = `a${char}b`;
    const item = headerListItem(name);
    assertOk(/^[\x21-\x7e]+$/.test(item), `${JSON.stringify(name)} → ${JSON.stringify(item)}`);
    assertOk(!item.includes(","), item);
    assertEquals(decodeURIComponent(item), name);
    assertOk(isWritableHeaderValue(headerList([name, "seed"])));
  }
  assertEquals(headerListItem("\u0000"), "%00");
  assertEquals(headerListItem("\u0001"), "%01");
  assertEquals(headerListItem("é"), "%C3%A9");
  assertEquals(decodeURIComponent(headerListItem("a\ud800")), "a\ufffd");
});

Deno.test("header value: ordinary field names are kept as they are", () => {
  for (
    const name of ["seed", "logprobs", "tools[type=custom].format", "output_config.effort", "a+b"]
  ) {
    assertEquals(headerListItem(name), name);
  }
  assertEquals(headerList(["seed", "top_k"]), "seed,top_k");
  assertEquals(headerList([]), "");
});

Deno.test("header value: a long list is cut at the cap and counts what it left out", () => {
  const names = Array.from({ length: 2_000 }, (_, index) => `field_${index}`);
  const value = headerList(names, 200);
  assertOk(value.length <= 200, `${value.length}`);
  const items = value.split(",");
  const last = items.at(-1)!;
  assertOk(/^\+\d+ more$/.test(last), last);
  assertEquals(items.length - 1 + Number(last.slice(1, -5)), names.length);
  assertEquals(headerList(["x".repeat(300)], 200), "+1 more");
  assertEquals(headerList(["a", "b"], 3), "a,b");
});

Deno.test("header value: what Deno's server can write", () => {
  assertOk(isWritableHeaderValue("text/plain; q=0.5\tx"));
  assertOk(isWritableHeaderValue("caf\xe9"));
  for (const char of CONTROLS.filter((char) => char !== "\t")) {
    assertOk(!isWritableHeaderValue(`a${char}b`), JSON.stringify(char));
  }
  assertOk(!isWritableHeaderValue("模"));
});

Deno.test("header value: an upstream's retry-after is kept as seconds or an HTTP-date, else dropped", () => {
  assertEquals(retryAfterValue("30"), "30");
  assertEquals(retryAfterValue(" 7 "), "7");
  assertEquals(retryAfterValue("Wed, 21 Oct 2015 07:28:00 GMT"), "Wed, 21 Oct 2015 07:28:00 GMT");
  for (
    const value of [null, undefined, "", "soon", "1\u0001", "-5", "1.5", "x".repeat(100), "1e3"]
  ) {
    assertEquals(retryAfterValue(value), undefined, JSON.stringify(value));
  }
});
