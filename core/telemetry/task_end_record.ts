/**
 * A task's request record once the task ended (pure): the submission's record held the pricing
 * and the hold; the end adds what the ledger took (settle, or release/refund), the units billed,
 * the channel that ran it, and the final receipt.
 */

import {
  failedTaskPricing,
  type ReceiptEntry,
  receiptOf,
  type ReceiptPricing,
} from "../billing/receipt.ts";
import type { RequestLogEntry } from "./request_log_entry.ts";

export interface TaskEnd {
  status: "succeeded" | "failed";
  /** The channel that ran the task. */
  channelId: string | null;
  /** The units held at submission. */
  held: number;
  /** The entry that settled or released the hold. */
  entry: ReceiptEntry | null;
  /** Succeeded: the pricing of what was delivered, when it differs from the submission's. */
  pricing?: ReceiptPricing;
  /** Failed: the percent of `held` given back. */
  refundPercent?: number;
  images?: number;
  billedSeconds?: number;
}

/** `record` (a task's submission, still pending) completed by `end`. */
export function taskEndedRecord(record: RequestLogEntry, end: TaskEnd): RequestLogEntry {
  const { task_pending: _pending, receipt: submitted, ...rest } = record;
  const holdId = submitted?.ledger_entry_ids[0];
  const entries: ReceiptEntry[] = [
    ...(holdId ? [{ id: holdId, amount: -end.held }] : []),
    ...(end.entry ? [end.entry] : []),
  ];
  const basePricing = end.pricing ?? submitted;
  const pricing = basePricing && end.status === "failed"
    ? failedTaskPricing(basePricing, { held: end.held, refundPercent: end.refundPercent ?? 100 })
    : basePricing;
  const receipt = pricing
    ? receiptOf({
      kind: pricing.kind,
      units: pricing.units,
      prices: pricing.prices,
      multipliers: pricing.multipliers,
      formula: pricing.formula,
      amount: pricing.amount,
    }, {
      entries,
      status: end.status === "succeeded" ? "settled" : "refunded",
      held: end.held,
    })
    : undefined;
  const charged = 0 - entries.reduce((sum, entry) => sum + entry.amount, 0);
  return {
    ...rest,
    channel_id: end.channelId ?? record.channel_id,
    task_status: end.status,
    cost: charged,
    ...(end.images ? { images: end.images } : {}),
    ...(end.billedSeconds ? { billed_seconds: end.billedSeconds } : {}),
    ...(receipt ? { receipt } : {}),
  };
}
