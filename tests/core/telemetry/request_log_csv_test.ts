import { assertEquals } from "../../helpers/assert.ts";
import { CSV_COLUMNS, csvField, csvHeader } from "../../../core/telemetry/request_log_csv.ts";

Deno.test("csvField() quotes fields with commas, quotes, CR or LF and doubles quotes (RFC 4180)", () => {
  assertEquals(csvField("plain"), "plain");
  assertEquals(csvField('a "b", c'), '"a ""b"", c"');
  assertEquals(csvField("line\r\nbreak"), '"line\r\nbreak"');
  assertEquals(csvField(null), "");
  assertEquals(csvField(["x", "y"]), '"x,y"');
  assertEquals(csvField(0), "0");
});

Deno.test("csvHeader() names every column once and ends in CRLF", () => {
  assertEquals(csvHeader(), `${CSV_COLUMNS.join(",")}\r\n`);
  assertEquals(new Set(CSV_COLUMNS).size, CSV_COLUMNS.length);
});
