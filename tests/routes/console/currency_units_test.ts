import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  currencyOfUnits,
  unitsOfCurrency,
  unitsOrText,
} from "../../../routes/console/currency_units.ts";

Deno.test("currency units: decimals become integer units exactly, never through floating point", () => {
  assertEquals(unitsOfCurrency("0.15", "Input"), 150_000);
  assertEquals(unitsOfCurrency("0.60", "Output"), 600_000);
  assertEquals(unitsOfCurrency(" 2 ", "p"), 2_000_000);
  assertEquals(unitsOfCurrency("0.000001", "p"), 1);
  assertEquals(unitsOfCurrency(".5", "p"), 500_000);
  assertEquals(unitsOfCurrency("3.", "p"), 3_000_000);
  assertEquals(unitsOfCurrency("0", "p"), 0);
  // 0.29 × 1e6 is 289999.99999999994 in floating point.
  assertEquals(unitsOfCurrency("0.29", "p"), 290_000);
  assertEquals(unitsOfCurrency("9007199254.740991", "p"), Number.MAX_SAFE_INTEGER);
});

Deno.test("currency units: more than 6 decimals, negative, text, empty and too large are refused by name", () => {
  const problem = (text: string) => {
    const result = unitsOfCurrency(text, "Input (per 1M tokens)");
    assertOk(typeof result !== "number", text);
    return result.problem;
  };
  assertOk(problem("0.1234567").includes("more than 6 decimals"));
  assertOk(problem("0.1234567").startsWith("Input (per 1M tokens)"));
  assertOk(problem("-1").includes("must not be negative"));
  assertOk(problem("abc").includes("an amount like 0.15"));
  assertOk(problem("").includes("an amount like 0.15"));
  assertOk(problem(".").includes("an amount like 0.15"));
  assertOk(problem("1,5").includes("an amount like 0.15"));
  assertOk(problem("1e3").includes("an amount like 0.15"));
  assertOk(problem("9007199254.740992").includes("too large"));
});

Deno.test("currency units: units as the shortest exact text", () => {
  assertEquals(currencyOfUnits(150_000), "0.15");
  assertEquals(currencyOfUnits(2_000_000), "2");
  assertEquals(currencyOfUnits(1), "0.000001");
  assertEquals(currencyOfUnits(0), "0");
  assertEquals(currencyOfUnits(12_345_678), "12.345678");
});

Deno.test("unitsOrText() reads a form's money in currency, signed; anything else as typed", () => {
  assertEquals(unitsOrText(" 0.15 "), 150_000);
  assertEquals(unitsOrText("-2"), -2_000_000);
  assertEquals(unitsOrText("3."), 3_000_000);
  for (const typed of ["ten", "0.0000001", "1.5.", "--1", "", "1e6"]) {
    assertEquals(unitsOrText(typed), typed.trim(), typed);
  }
});
