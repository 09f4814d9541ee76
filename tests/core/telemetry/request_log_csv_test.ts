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

Deno.test("csvField() writes text that could start a formula as text: a leading ' and quoted (OWASP)", () => {
  assertEquals(
    csvField('=HYPERLINK("http://x.example","y")'),
    `"'=HYPERLINK(""http://x.example"",""y"")"`,
  );
  assertEquals(csvField("+1+2"), `"'+1+2"`);
  assertEquals(csvField("-2+3+cmd|' /C calc'!A0"), `"'-2+3+cmd|' /C calc'!A0"`);
  assertEquals(csvField("@SUM(A1:A2)"), `"'@SUM(A1:A2)"`);
  assertEquals(csvField("\t=1"), `"'\t=1"`);
  assertEquals(csvField("\r=1"), `"'\r=1"`);
  assertEquals(csvField(["=a", "b"]), `"'=a,b"`);
  // A formula character anywhere but first is harmless text.
  assertEquals(csvField("a=b"), "a=b");
  // Text that looks like a negative number is still text a client may have chosen.
  assertEquals(csvField("-5"), `"'-5"`);
});

Deno.test("csvField() writes numbers as they are, negative ones too", () => {
  assertEquals(csvField(-5), "-5");
  assertEquals(csvField(-0.25), "-0.25");
  assertEquals(csvField(1e21), "1e+21");
  assertEquals(csvField(-1e-7), "-1e-7");
});
