import { assertEquals } from "../../helpers/assert.ts";
import {
  accountInputOf,
  accountPatchOf,
  creditInputOf,
} from "../../../routes/console/account_form.ts";

Deno.test("accountInputOf() leaves out empty fields, reads money in currency as units and the unlimited box", () => {
  assertEquals(accountInputOf({ name: " Acme ", group: "", credit_limit: "", balance: "" }), {
    name: "Acme",
  });
  assertEquals(
    accountInputOf({
      name: "Acme",
      group: "vip",
      credit_limit: "0.25",
      unlimited: "true",
      balance: "-5",
    }),
    { name: "Acme", group: "vip", credit_limit: 250_000, unlimited: true, balance: -5_000_000 },
  );
  // No amount (7 decimals, words): passed on as typed, for the API's schema to refuse.
  assertEquals(accountInputOf({ name: "", balance: "0.0000001" }), {
    name: "",
    balance: "0.0000001",
  });
});

Deno.test("accountPatchOf() sends every field of the edit form; the last unlimited wins", () => {
  assertEquals(
    accountPatchOf({ name: "A", group: "default", credit_limit: "0", unlimited: "false" }),
    { name: "A", group: "default", credit_limit: 0, unlimited: false },
  );
  assertEquals(accountPatchOf({ unlimited: "true" }), { unlimited: true });
  assertEquals(accountPatchOf({ name: " ", credit_limit: "x" }), { name: "", credit_limit: "x" });
});

Deno.test("creditInputOf() reads an amount in currency as units and leaves an empty note out", () => {
  assertEquals(creditInputOf({ amount: " 0.5 ", note: "" }), { amount: 500_000 });
  assertEquals(creditInputOf({ amount: "-1", note: " back " }), {
    amount: -1_000_000,
    note: "back",
  });
  assertEquals(creditInputOf({ amount: "1.5" }), { amount: 1_500_000 });
  assertEquals(creditInputOf({ amount: "ten" }), { amount: "ten" });
  assertEquals(creditInputOf({}), { amount: "" });
});
