import { assertEquals } from "../../helpers/assert.ts";
import { billingOf } from "../../../core/billing/ledger_audit.ts";
import type { LedgerEntry } from "../../../core/billing/ledger.ts";

function entry(type: LedgerEntry["type"], amount: number, extra: Partial<LedgerEntry> = {}) {
  return {
    id: `le_${type}`,
    key_id: "key_1",
    type,
    amount,
    balance_after: 0,
    ref: "task_1",
    at: "",
    ...extra,
  };
}

Deno.test("billingOf() a settled hold: collected is held less what came back", () => {
  const billing = billingOf([entry("hold", -500), entry("settle", 120, { cost: 380 })]);
  assertEquals([billing.held, billing.settled, billing.refunded], [500, 380, 120]);
  assertEquals(billing.entry_ids, ["le_hold", "le_settle"]);
});

Deno.test("billingOf() a released hold refunds all; an open hold has settled nothing", () => {
  const released = billingOf([entry("hold", -500), entry("release", 500)]);
  assertEquals([released.held, released.settled, released.refunded], [500, 0, 500]);
  const open = billingOf([entry("hold", -500)]);
  assertEquals([open.held, open.settled, open.refunded], [500, 0, 0]);
});
