/**
 * Settles an answered request's bill off the response path and then logs it with its receipt:
 * text, embeddings, rerank and moderation, once the answer's price is known.
 * Module-level, and given only the bill, the pricing and the log, so waiting for an aggregated
 * charge keeps those alive and not the request's scope.
 */

import type { RequestBill } from "./request_bill.ts";
import { type Receipt, receiptOf, type ReceiptPricing, type ReceiptStatus } from "./receipt.ts";

export async function settleAndLog(
  bill: RequestBill,
  input: {
    pricing: ReceiptPricing;
    /** The request's log (RequestContext.finishLater's), given the bill's cost and receipt. */
    log: (billed: { cost: number; receipt: Receipt }) => void;
    tokens?: number;
  },
): Promise<void> {
  const { pricing, log } = input;
  let cost = 0;
  let status: ReceiptStatus = bill.holds ? "settled" : "charged";
  try {
    cost = await bill.settle(pricing.amount, { tokens: input.tokens });
  } catch (error) {
    // Never leave a hold open: a settle that cannot be written is released.
    status = "released";
    await bill.release(`settle failed: ${String(error)}`).catch(() => {});
  }
  log({
    cost,
    receipt: receiptOf(pricing, { entries: bill.entries, status, shortfall: bill.shortfall }),
  });
}
