import { assertEquals } from "../../helpers/assert.ts";
import { moneyPatchOf } from "../../../routes/console/money_form.ts";

Deno.test("moneyPatchOf() upper-cases the code, reads the decimals, leaves empty fields out", () => {
  assertEquals(moneyPatchOf({ currency: " eur ", decimals: "3" }), {
    currency: "EUR",
    decimals: 3,
  });
  assertEquals(moneyPatchOf({ currency: "", decimals: "" }), {});
  // Anything else goes on as typed, for the API's schema to refuse with its own message.
  assertEquals(moneyPatchOf({ decimals: "two" }), { decimals: "two" });
  assertEquals(moneyPatchOf({ decimals: "2.5" }), { decimals: "2.5" });
});
