/**
 * Redemption-code batches and their codes' states in KV. A batch's codes are written before its
 * batch record, so a batch half written (a crash) has no record and none of its codes redeems.
 */

import { GatewayError } from "../errors.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { sha256Hex, timeOrderedId } from "../util/ids.ts";
import {
  type CodeState,
  codeState,
  type CodeView,
  codeView,
  newRedemptionCode,
  type RedemptionBatch,
  type RedemptionBatchInput,
  type StoredCode,
} from "./redemption_records.ts";

/** Codes written per commit: 3 mutations each, well under KV's 1,000 per commit. */
const CODES_PER_COMMIT = 200;

/** Where a code's hash points. */
export interface CodeLocation {
  batch_id: string;
  code_id: string;
}

/** A batch with how many of its codes are in each state. */
export interface BatchSummary extends RedemptionBatch {
  states: Record<CodeState, number>;
}

export const batchNotFound = (id: string) =>
  new GatewayError("batch_not_found", 404, `No redemption batch has the id '${id}'`);
export const codeIdNotFound = (id: string) =>
  new GatewayError("code_not_found", 404, `No redemption code has the id '${id}'`);

export class RedemptionStore {
  readonly #kv: KvBackend;

  constructor(kv: KvBackend) {
    this.#kv = kv;
  }

  /** Makes a batch and its codes; the codes are in the answer only, KV keeps their hashes. */
  async createBatch(
    input: RedemptionBatchInput,
    nowMs = Date.now(),
  ): Promise<{ batch: RedemptionBatch; codes: Array<{ id: string; code: string }> }> {
    const batch: RedemptionBatch = {
      id: timeOrderedId("rb"),
      name: input.name,
      amount: input.amount,
      count: input.count,
      expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
      group: input.group ?? null,
      disabled_at: null,
      created_at: new Date(nowMs).toISOString(),
    };
    const codes: Array<{ id: string; code: string; hash: string }> = [];
    for (let i = 0; i < input.count; i++) {
      const code = newRedemptionCode();
      codes.push({ id: timeOrderedId("rc"), code, hash: await sha256Hex(code) });
    }
    for (let i = 0; i < codes.length; i += CODES_PER_COMMIT) {
      const atomic = this.#kv.atomic();
      for (const { id, hash } of codes.slice(i, i + CODES_PER_COMMIT)) {
        const stored: StoredCode = {
          id,
          batch_id: batch.id,
          state: "unused",
          redeemed_by: null,
          wallet_id: null,
          redeemed_at: null,
          disabled_at: null,
        };
        const location: CodeLocation = { batch_id: batch.id, code_id: id };
        atomic.set(kvKeys.redemptionCode(batch.id, id), stored)
          .set(kvKeys.redemptionCodeBatch(id), batch.id)
          .set(kvKeys.redemptionCodeByHash(hash), location);
      }
      await withKvRetry(() => atomic.commit());
    }
    await withKvRetry(() => this.#kv.set(kvKeys.redemptionBatch(batch.id), batch));
    return { batch, codes: codes.map(({ id, code }) => ({ id, code })) };
  }

  /** Batches, newest first unless `order` is `asc`. */
  async listBatches(
    options: { limit: number; cursor?: string; order: "asc" | "desc" },
  ): Promise<{ data: RedemptionBatch[]; cursor: string | null }> {
    const iterator = this.#kv.list<RedemptionBatch>({ prefix: kvKeys.redemptionBatches() }, {
      limit: options.limit,
      cursor: options.cursor,
      reverse: options.order === "desc",
    });
    const data: RedemptionBatch[] = [];
    for await (const entry of iterator) data.push(entry.value);
    return { data, cursor: data.length === options.limit ? iterator.cursor : null };
  }

  async batchEntry(id: string): Promise<Deno.KvEntryMaybe<RedemptionBatch>> {
    return await this.#kv.get<RedemptionBatch>(kvKeys.redemptionBatch(id));
  }

  /** A batch, or 404 `batch_not_found`. */
  async getBatch(id: string): Promise<RedemptionBatch> {
    const entry = await this.batchEntry(id);
    if (!entry.value) throw batchNotFound(id);
    return entry.value;
  }

  /** A batch and the count of its codes in each state. */
  async summary(id: string, nowMs = Date.now()): Promise<BatchSummary> {
    const batch = await this.getBatch(id);
    const states: Record<CodeState, number> = { unused: 0, redeemed: 0, disabled: 0, expired: 0 };
    for (const code of await this.#storedCodes(id)) states[codeState(code, batch, nowMs)]++;
    return { ...batch, states };
  }

  async #storedCodes(batchId: string): Promise<StoredCode[]> {
    const codes: StoredCode[] = [];
    const prefix = kvKeys.redemptionCodesOf(batchId);
    for await (const entry of this.#kv.list<StoredCode>({ prefix })) codes.push(entry.value);
    return codes;
  }

  /**
   * A batch's codes in creation order with their states, `state` only if given, `limit` after
   * code id `after` (a batch holds at most 1,000 codes, so it is read whole).
   */
  async codes(
    batchId: string,
    options: { state?: CodeState; after?: string; limit?: number } = {},
    nowMs = Date.now(),
  ): Promise<{ data: CodeView[]; cursor: string | null }> {
    const batch = await this.getBatch(batchId);
    const all = (await this.#storedCodes(batchId))
      .map((code) => codeView(code, batch, nowMs))
      .filter((code) => !options.state || code.state === options.state)
      .filter((code) => options.after === undefined || code.id > options.after);
    const limit = options.limit ?? all.length;
    const data = all.slice(0, limit);
    return { data, cursor: all.length > limit ? data[data.length - 1].id : null };
  }

  /** One code's view, by its id, or 404 `code_not_found`. */
  async code(codeId: string, nowMs = Date.now()): Promise<CodeView> {
    const batchId = (await this.#kv.get<string>(kvKeys.redemptionCodeBatch(codeId))).value;
    const batch = batchId ? (await this.batchEntry(batchId)).value : null;
    const stored = batch
      ? (await this.#kv.get<StoredCode>(kvKeys.redemptionCode(batch.id, codeId))).value
      : null;
    if (!batch || !stored) throw codeIdNotFound(codeId);
    return codeView(stored, batch, nowMs);
  }

  /** Disables a batch: none of its unused codes redeems from now on. Disabling twice is a no-op. */
  async disableBatch(id: string, nowMs = Date.now()): Promise<BatchSummary> {
    // kv-locked: withKvRetry retries a locked commit; a failed check reads the batch again.
    for (let attempt = 0; attempt < 20; attempt++) {
      const entry = await withKvRetry(() => this.batchEntry(id));
      if (!entry.value) throw batchNotFound(id);
      if (entry.value.disabled_at) return await this.summary(id, nowMs);
      const disabled = { ...entry.value, disabled_at: new Date(nowMs).toISOString() };
      const committed = await withKvRetry(() =>
        this.#kv.atomic().check(entry).set(kvKeys.redemptionBatch(id), disabled).commit()
      );
      if (committed.ok) return await this.summary(id, nowMs);
    }
    throw new GatewayError("conflict", 409, "The batch changed meanwhile; retry");
  }

  /**
   * Disables one unused code. A redeemed code stays redeemed (409 `code_redeemed`); disabling
   * a disabled code is a no-op.
   */
  async disableCode(codeId: string, nowMs = Date.now()): Promise<CodeView> {
    const batchId = (await this.#kv.get<string>(kvKeys.redemptionCodeBatch(codeId))).value;
    const batch = batchId ? (await this.batchEntry(batchId)).value : null;
    if (!batch) throw codeIdNotFound(codeId);
    const key = kvKeys.redemptionCode(batch.id, codeId);
    // kv-locked: withKvRetry retries a locked commit; a failed check reads the code again.
    for (let attempt = 0; attempt < 20; attempt++) {
      const entry = await withKvRetry(() => this.#kv.get<StoredCode>(key));
      if (!entry.value) throw codeIdNotFound(codeId);
      if (entry.value.state === "redeemed") {
        throw new GatewayError(
          "code_redeemed",
          409,
          `The code '${codeId}' was redeemed at ${entry.value.redeemed_at}; it cannot be disabled`,
        );
      }
      if (entry.value.state === "disabled") return codeView(entry.value, batch, nowMs);
      const disabled: StoredCode = {
        ...entry.value,
        state: "disabled",
        disabled_at: new Date(nowMs).toISOString(),
      };
      const committed = await withKvRetry(() =>
        this.#kv.atomic().check(entry).set(key, disabled).commit()
      );
      if (committed.ok) return codeView(disabled, batch, nowMs);
    }
    throw new GatewayError("conflict", 409, "The code changed meanwhile; retry");
  }

  /** Where the code whose SHA-256 is `hash` lives, or null. */
  async locate(hash: string): Promise<CodeLocation | null> {
    return (await this.#kv.get<CodeLocation>(kvKeys.redemptionCodeByHash(hash))).value;
  }

  async codeEntry(location: CodeLocation): Promise<Deno.KvEntryMaybe<StoredCode>> {
    return await this.#kv.get<StoredCode>(
      kvKeys.redemptionCode(location.batch_id, location.code_id),
    );
  }
}
