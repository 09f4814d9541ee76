/**
 * Redemption codes as the operator makes them and KV keeps them: a batch (name, amount, expiry,
 * optional group) and its codes' states. A code itself is shown once at creation and never
 * stored; KV keeps its SHA-256 only.
 */

import { z } from "zod";
import { MAX_BALANCE } from "../billing/ledger.ts";
import { randomBase62 } from "../util/ids.ts";

/** The most codes one batch may hold. */
export const MAX_CODES_PER_BATCH = 1000;

export const redemptionBatchInputSchema = z.strictObject({
  /** What the batch is for; noted in every ledger entry its codes make. */
  name: z.string().trim().min(1).max(200),
  /** Units each code credits. */
  amount: z.int().positive().max(MAX_BALANCE),
  count: z.int().min(1).max(MAX_CODES_PER_BATCH),
  /** ISO 8601 time after which the codes are refused (410 `code_expired`); must be in the future. */
  expires_at: z.iso.datetime({ offset: true }).refine((at) => Date.parse(at) > Date.now(), {
    message: "must be in the future",
  }).optional(),
  /** Only redeemers in this group may redeem the batch's codes. */
  group: z.string().trim().min(1).max(100).optional(),
});

export type RedemptionBatchInput = z.infer<typeof redemptionBatchInputSchema>;

export interface RedemptionBatch {
  id: string;
  name: string;
  amount: number;
  count: number;
  expires_at: string | null;
  group: string | null;
  /** When the batch was disabled: none of its unused codes may be redeemed since. */
  disabled_at: string | null;
  created_at: string;
}

/** A code's state as stored; `expired` is not stored, it follows from the batch's expiry. */
export interface StoredCode {
  id: string;
  batch_id: string;
  state: "unused" | "redeemed" | "disabled";
  /** The account that redeemed it, and the wallet it credited. */
  redeemed_by: string | null;
  wallet_id: string | null;
  redeemed_at: string | null;
  disabled_at: string | null;
}

export type CodeState = "unused" | "redeemed" | "disabled" | "expired";

/** A code as the admin API shows it: its state at `nowMs`, never the code. */
export interface CodeView extends Omit<StoredCode, "state"> {
  state: CodeState;
}

export const CODE_STATES: readonly CodeState[] = ["unused", "redeemed", "disabled", "expired"];

/**
 * What a code is at `nowMs`: redeemed stays redeemed; an unused code of a disabled batch is
 * disabled; an unused code past its batch's expiry is expired.
 */
export function codeState(code: StoredCode, batch: RedemptionBatch, nowMs: number): CodeState {
  if (code.state !== "unused") return code.state;
  if (batch.disabled_at) return "disabled";
  if (batch.expires_at && Date.parse(batch.expires_at) <= nowMs) return "expired";
  return "unused";
}

export function codeView(code: StoredCode, batch: RedemptionBatch, nowMs: number): CodeView {
  return { ...code, state: codeState(code, batch, nowMs) };
}

/** The code's own format: `gwr-` and 24 base62 characters (about 143 bits). */
export const CODE_PATTERN = /^gwr-[0-9A-Za-z]{24}$/;

export function newRedemptionCode(): string {
  return `gwr-${randomBase62(24)}`;
}
