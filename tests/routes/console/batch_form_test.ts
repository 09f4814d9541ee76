import { assertEquals } from "../../helpers/assert.ts";
import { batchInputOf } from "../../../routes/console/batch_form.ts";

Deno.test("batchInputOf() reads the amount in currency as units, the count, the expiry as UTC, and leaves empty options out", () => {
  assertEquals(
    batchInputOf({ name: " launch ", amount: "2", count: " 3 ", expires_at: "", group: "" }),
    { name: "launch", amount: 2_000_000, count: 3 },
  );
  assertEquals(
    batchInputOf({
      name: "n",
      amount: "0.000001",
      count: "1",
      expires_at: "2030-01-01T00:00",
      group: " vip ",
    }),
    { name: "n", amount: 1, count: 1, expires_at: "2030-01-01T00:00:00Z", group: "vip" },
  );
});

Deno.test("batchInputOf() passes anything else on as text, for the schema to name", () => {
  assertEquals(batchInputOf({ name: "n", amount: "1.5.", count: "ten", expires_at: "soon" }), {
    name: "n",
    amount: "1.5.",
    count: "ten",
    expires_at: "soon",
  });
  assertEquals(batchInputOf({}), { name: "", amount: "", count: "" });
});
