/**
 * Redeeming a code: the code's change to `redeemed` and the credit of the redeemer's wallet are
 * one atomic commit (Ledger.creditGuarded), so a code credits exactly once however many
 * redemptions race on however many instances. Batches and codes are managed in
 * redemption_store.ts.
 */

import { GatewayError } from "../errors.ts";
import type { Ledger, LedgerEntry } from "../billing/ledger.ts";
import type { KvAtomic } from "../kv/kv_backend.ts";
import { sha256Hex } from "../util/ids.ts";
import { CODE_PATTERN, type RedemptionBatch, type StoredCode } from "./redemption_records.ts";
import type { RedemptionStore } from "./redemption_store.ts";
import { RedeemThrottle, type RedeemThrottleOptions } from "./redeem_throttle.ts";

/** Who redeems: an account, the ledger subject of its wallet, and its group. */
export interface Redeemer {
  accountId: string;
  walletId: string;
  group: string;
}

export interface Redemption {
  code_id: string;
  batch_id: string;
  amount: number;
  wallet_id: string;
  ledger_entry: LedgerEntry;
}

const NOT_FOUND = () =>
  new GatewayError("code_not_found", 404, "No redemption code matches what was sent");

const REDEEMED = () =>
  new GatewayError("code_redeemed", 409, "This code has already been redeemed");

/** Why a code cannot be redeemed by `redeemer` at `nowMs`, or null when it can. */
function refusal(
  code: StoredCode,
  batch: RedemptionBatch,
  redeemer: Redeemer,
  nowMs: number,
): GatewayError | null {
  if (code.state === "redeemed") return REDEEMED();
  if (code.state === "disabled" || batch.disabled_at) {
    return new GatewayError("code_disabled", 409, "This code has been disabled");
  }
  if (batch.expires_at && Date.parse(batch.expires_at) <= nowMs) {
    return new GatewayError("code_expired", 410, `This code expired at ${batch.expires_at}`);
  }
  if (batch.group && batch.group !== redeemer.group) {
    return new GatewayError(
      "code_not_for_group",
      403,
      "This code may only be redeemed by accounts of another group",
    );
  }
  return null;
}

export class RedemptionCodes {
  readonly store: RedemptionStore;
  readonly #ledger: Ledger;
  readonly #throttle: RedeemThrottle;

  constructor(
    store: RedemptionStore,
    ledger: Ledger,
    options: { throttle?: Partial<RedeemThrottleOptions> } = {},
  ) {
    this.store = store;
    this.#ledger = ledger;
    this.#throttle = new RedeemThrottle(options.throttle);
  }

  /**
   * Credits `redeemer.walletId` with the code's amount, once. Refused: 404 `code_not_found`
   * (unknown or malformed), 409 `code_redeemed`, 409 `code_disabled`, 410 `code_expired`, 403
   * `code_not_for_group`, and 429 once the redeemer has failed too often (each refusal counts).
   */
  async redeem(code: string, redeemer: Redeemer, nowMs?: number): Promise<Redemption> {
    this.#throttle.check(redeemer.accountId);
    try {
      return await this.#redeem(code.trim(), redeemer, nowMs);
    } catch (error) {
      if (error instanceof GatewayError && error.status < 500) {
        this.#throttle.failed(redeemer.accountId);
      }
      throw error;
    }
  }

  async #redeem(code: string, redeemer: Redeemer, fixedNow?: number): Promise<Redemption> {
    if (!CODE_PATTERN.test(code)) throw NOT_FOUND();
    const location = await this.store.locate(await sha256Hex(code));
    if (!location) throw NOT_FOUND();
    let why: GatewayError | null = null;
    // Runs in the ledger's commit, again on fresh reads whenever that commit fails.
    const guard = async (atomic: KvAtomic) => {
      const [batchEntry, codeEntry] = await Promise.all([
        this.store.batchEntry(location.batch_id),
        this.store.codeEntry(location),
      ]);
      const batch = batchEntry.value;
      const stored = codeEntry.value;
      if (!batch || !stored) {
        why = NOT_FOUND();
        return false;
      }
      const nowMs = fixedNow ?? Date.now();
      why = refusal(stored, batch, redeemer, nowMs);
      if (why) return false;
      const redeemed: StoredCode = {
        ...stored,
        state: "redeemed",
        redeemed_by: redeemer.accountId,
        wallet_id: redeemer.walletId,
        redeemed_at: new Date(nowMs).toISOString(),
      };
      // The batch is checked too: a disable committed meanwhile makes this commit fail.
      atomic.check(batchEntry, codeEntry).set(codeEntry.key, redeemed);
      return true;
    };
    // A batch's amount and name never change once made; the guard reads what may (states).
    const preview = await this.store.batchEntry(location.batch_id);
    if (!preview.value) throw NOT_FOUND();
    const entry = await this.#ledger.creditGuarded(redeemer.walletId, preview.value.amount, {
      ref: `redeem:${location.code_id}`,
      note:
        `redemption code ${location.code_id} of batch '${preview.value.name}' (${location.batch_id})`,
      guard,
    });
    // No reason from the guard: the ref `redeem:<code id>` exists, so the code was redeemed.
    if (!entry) throw why ?? REDEEMED();
    return {
      code_id: location.code_id,
      batch_id: location.batch_id,
      amount: entry.amount,
      wallet_id: redeemer.walletId,
      ledger_entry: entry,
    };
  }
}
