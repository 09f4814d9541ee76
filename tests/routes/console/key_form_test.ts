import { assertEquals } from "../../helpers/assert.ts";
import { keyInputOf, keyPatchOf } from "../../../routes/console/key_form.ts";

Deno.test("keyInputOf() leaves out empty fields and reads money in currency, integers, models and UTC times", () => {
  assertEquals(keyInputOf({ name: " a ", balance: "", group: "", rpm: "" }), { name: "a" });
  assertEquals(
    keyInputOf({
      name: "a",
      balance: "5",
      models: "m1, m2,",
      expires_at: "2030-01-02T03:04",
      rpm: "60",
      tpm: "x",
      cap_day: "0.00001",
      cap_month: "",
    }),
    {
      name: "a",
      models: ["m1", "m2"],
      expires_at: "2030-01-02T03:04:00Z",
      rpm: 60,
      tpm: "x",
      spend_limits: { day: 10 },
      balance: 5_000_000,
    },
  );
});

Deno.test("keyPatchOf() with clearEmpty clears the optional fields the form sent empty", () => {
  assertEquals(
    keyPatchOf({ name: "b", models: "", rpm: "", cap_day: "" }, { clearEmpty: true }),
    { name: "b", models: null, rpm: null, spend_limits: null },
  );
});

Deno.test("keyInputOf() reads the IP allowlist one range per line or comma-separated", () => {
  assertEquals(
    keyInputOf({ name: "a", ip_allowlist: " 203.0.113.0/24\r\n2001:db8::/32, 10.1.2.3,\n\n" }),
    { name: "a", ip_allowlist: ["203.0.113.0/24", "2001:db8::/32", "10.1.2.3"] },
  );
  assertEquals(keyPatchOf({ ip_allowlist: " " }, { clearEmpty: true }), { ip_allowlist: null });
  assertEquals(keyPatchOf({ ip_allowlist: "" }), {});
});

Deno.test("keyInputOf() sends a chosen account, and leaves the default (its own account) out", () => {
  assertEquals(keyInputOf({ name: "a", account_id: "", balance: "" }), { name: "a" });
  assertEquals(keyInputOf({ name: "a", account_id: " acct_1 ", balance: "" }), {
    name: "a",
    account_id: "acct_1",
  });
  assertEquals(keyInputOf({ name: "a", account_id: "acct_1", balance: "5", group: "g" }), {
    name: "a",
    group: "g",
    account_id: "acct_1",
    balance: 5_000_000,
  });
});
