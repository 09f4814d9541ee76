/**
 * The one ledger. Each balance change and its entry are written in one atomic commit, and each
 * is possible once only: a hold opens a record keyed by its ref; settle and release consume that
 * record under a check, so a second settle or release of the same ref does nothing.
 * Invariant at every moment, per key: sum of entry amounts = balance.
 */

import { GatewayError } from "../errors.ts";
import { timeOrderedId } from "../util/ids.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import {
  idTimeBound,
  kvListOptions,
  type ListOptions,
  timeRangeSelector,
} from "../kv/list_options.ts";
import { minuteAt, type SpendPeriod, spendWindowsAt } from "./spend_windows.ts";
import { spendCapRefusal, tpmRefusal } from "./cap_refusals.ts";
import { BudgetLeases } from "./budget_leases.ts";
import type { KvAtomic, KvBackend } from "../kv/kv_backend.ts";
import {
  awaitStore,
  graceRefusal,
  isStoreUnavailable,
  type StoreWaits,
} from "../kv/store_health.ts";
import {
  type BatchView,
  type CounterChange,
  counterValue,
  GUARD_REFUSED,
  LedgerBatch,
  type LedgerCaches,
  NEEDS_FRESH_BALANCE,
  type Plan,
  type PlannedEntry,
  type QueuedChange,
} from "./ledger_batch.ts";
import type {
  BudgetLease,
  LedgerEntry,
  OpenHold,
  SpendCaps,
  SpendingLimit,
} from "./ledger_records.ts";

export type {
  BillableKey,
  BudgetLease,
  LedgerEntry,
  LedgerEntryType,
  OpenHold,
  SpendCaps,
  SpendingLimit,
} from "./ledger_records.ts";
export { walletOf } from "./ledger_records.ts";

/** Units reserved by `leases`. */
function leasedUnits(leases: Map<string, BudgetLease>): number {
  let total = 0;
  for (const lease of leases.values()) total += lease.amount;
  return total;
}

/** Whether `caps` limits anything, so that every request of the key must hold first. */
export function hasSpendCaps(caps: SpendCaps): boolean {
  return caps.tpm != null ||
    Object.values(caps.spend_limits ?? {}).some((limit) => limit != null);
}

/** How long a minute's token counter is kept: the minute, and one more for a late settle. */
const TOKEN_COUNTER_TTL_MS = 120_000;

/** Options of settle and release. */
export interface CloseOptions {
  /**
   * Runs in the commit's plan: adds its own checks and writes (e.g. a task's final state) to
   * `atomic`, or returns false to leave everything as it is. A guarded change commits alone.
   */
  guard?: (atomic: KvAtomic) => Promise<boolean>;
}

/** What a hold takes. */
export interface HoldOptions {
  /** How far the key may go below zero. */
  limit: SpendingLimit;
  /** The request or task the money is held for. */
  ref: string;
  amount: number;
  /** The key the request came from, whose caps count it (default: the wallet id itself). */
  keyId?: string;
  /** The key's caps; checked in the hold's commit, against counters that commit updates. */
  caps?: SpendCaps;
  /** Tokens the request may use at most, held against `caps.tpm` for the current minute. */
  tokens?: number;
  /** The ref is fresh (a request id), so no earlier hold of it needs to be looked for. */
  uniqueRef?: boolean;
  /** Further writes that must land in the same commit as the hold (e.g. a task record). */
  alsoWrite?: (atomic: KvAtomic) => void;
  /**
   * What else than adding credit makes the request fit, for the 402's message; it depends on
   * the request's kind (e.g. `lower max_tokens` for text). Absent: only adding credit is said.
   */
  remedy?: string;
}

/**
 * What closing `hold` does to its counters: each spend window it counts in loses what the entry
 * gives back (a settle leaves the collected cost, a release nothing); its minute's tokens become
 * the tokens used (a release: none). A minute already over needs no change.
 */
function closingCounterChanges(
  closing: { hold: OpenHold; planned: PlannedEntry; options: { tokens?: number } },
): CounterChange[] {
  const { hold, planned, options } = closing;
  const keyId = hold.key_id;
  const changes: CounterChange[] = (hold.spend_windows ?? []).map((id) => ({
    key: kvKeys.spendCounter(keyId, id),
    delta: -planned.amount,
  }));
  const heldTokens = hold.tokens ?? 0;
  const tokensDelta = (options.tokens ?? heldTokens) - heldTokens;
  if (hold.minute !== undefined && tokensDelta && hold.minute >= minuteAt(Date.now())) {
    changes.push({
      key: kvKeys.tokenCounter(keyId, hold.minute),
      delta: tokensDelta,
      expireIn: TOKEN_COUNTER_TTL_MS,
    });
  }
  return changes.filter((change) => change.delta !== 0);
}

/** The change to `keyId`'s shortfall counter for `shortfall` units left uncollected. */
function shortfallCounter(keyId: string, shortfall: number): CounterChange[] {
  return shortfall > 0 ? [{ key: kvKeys.shortfallTotal(keyId), delta: shortfall }] : [];
}

const MAX_ATTEMPTS = 50;

/** How long after another process's write on a wallet this one reads before each commit. */
const CONTENDED_MS = 2_000;

/**
 * The largest balance, either way, that a credit may leave: past Number.MAX_SAFE_INTEGER units
 * a double no longer holds every integer, and sums would silently round.
 */
export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

/** Changes of one key committed together; bounded well under KV's 1,000 mutations per commit. */
const MAX_BATCH = 100;

/**
 * Money movements on keys, exact under concurrency and across processes.
 *
 * Every change to a key also writes that key's balance entry, and every commit checks the
 * balance entry's versionstamp: so all changes of one key, on any instance, are ordered by that
 * one check, and a plan's reads of hold records are valid as long as the check passes. Within a
 * process, changes queued for a key are planned in order and written in one atomic commit (group
 * commit): a busy key costs one KV commit per batch, not per request.
 */
export class Ledger {
  #kv: KvBackend;
  #queues = new Map<string, QueuedChange[]>();
  readonly #caches: LedgerCaches = {
    balances: new Map(),
    localHolds: new Map(),
    leases: new Map(),
  };
  /** Wallets another process wrote lately, until when (see #contended). */
  readonly #contendedUntil = new Map<string, number>();
  /** Until when this process leaves a contended wallet to the other (see #commitBatch). */
  readonly #turns = new Map<string, number>();
  /** Units of holds queued in this process and not yet committed, per key. */
  #pendingHolds = new Map<string, number>();

  /** The process's instance id, written on every hold so a sweep can tell who owns it. */
  #instanceId?: string;
  /** This process's budget leases and the aggregated charges of its requests. */
  readonly budgets: BudgetLeases;

  readonly #outage?: StoreWaits;

  /**
   * `outage`: the store's deadlines and grace, with a remote store; the ledger's commits are then
   * left to finish (deadline_kv.ts), and the requests waiting for them give up by these.
   */
  constructor(
    kv: KvBackend,
    options: { instanceId?: string; flushMs?: number; outage?: StoreWaits } = {},
  ) {
    this.#kv = kv;
    this.#instanceId = options.instanceId;
    this.#outage = options.outage;
    this.budgets = new BudgetLeases(this, { flushMs: options.flushMs, outage: options.outage });
  }

  /**
   * Throws 503 `store_unavailable` when the store has answered nothing for longer than the
   * grace: past it, no billable request is served, not even one that needs no commit first.
   */
  refuseBeyondGrace(): void {
    const refusal = this.#outage && graceRefusal(this.#outage);
    if (refusal) throw refusal;
  }

  /**
   * `change` (a hold, say), given up on with 503 `store_unavailable` once the store answers
   * nothing for a whole deadline; `onLate` gets what it resolves to if it lands after that.
   */
  whileStoreAnswers<T>(change: Promise<T>, onLate?: (value: T) => void): Promise<T> {
    return this.#outage ? awaitStore(change, this.#outage, onLate) : change;
  }

  /** The id leases are taken under: the instance's, or one made for this ledger. */
  get instanceId(): string {
    return this.#instanceId ??= timeOrderedId("inst");
  }

  async #readBalance(
    keyId: string,
    fresh: boolean,
  ): Promise<{ entry: Deno.KvEntryMaybe<number>; cached: boolean }> {
    const cached = this.#caches.balances.get(keyId);
    if (cached && !fresh && !this.#contended(keyId)) return { entry: cached, cached: true };
    const entry = await this.#kv.get<number>(kvKeys.balance(keyId));
    // The cache holds this process's last commit or read: another writer moved the balance.
    if (cached && cached.versionstamp !== entry.versionstamp) {
      this.#contendedUntil.set(keyId, Date.now() + CONTENDED_MS);
    }
    this.#caches.balances.set(keyId, entry);
    return { entry, cached: false };
  }

  /**
   * Whether another process wrote `keyId`'s balance lately. Then each batch reads the balance
   * before its commit, as the other process's do: a process that planned on its cached balance
   * would commit one round trip ahead of a process that must read first, win every race on the
   * balance's check, and starve the other (docs/performance.md, "Two instances").
   */
  #contended(keyId: string): boolean {
    const until = this.#contendedUntil.get(keyId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#contendedUntil.delete(keyId);
    return false;
  }

  /** Queues a change of `keyId`'s balance; resolves with its entry, or null if it changed nothing. */
  #change(keyId: string, plan: Plan, alone = false): Promise<LedgerEntry | null> {
    return new Promise((resolve, reject) => {
      let queue = this.#queues.get(keyId);
      const idle = !queue;
      if (!queue) this.#queues.set(keyId, queue = []);
      queue.push({ plan, alone, resolve, reject });
      if (idle) this.#drain(keyId, queue);
    });
  }

  async #drain(keyId: string, queue: QueuedChange[]): Promise<void> {
    while (queue.length) {
      const count = queue[0].alone
        ? 1
        : Math.min(MAX_BATCH, queue.findIndex((change) => change.alone) >>> 0, queue.length);
      const batch = queue.splice(0, count);
      try {
        await this.#commitBatch(keyId, batch);
      } catch (error) {
        for (const change of batch) change.reject(error);
      }
    }
    this.#queues.delete(keyId);
  }

  /** Commits `changes` as one batch, planned again on a fresh balance while its commit fails. */
  async #commitBatch(keyId: string, changes: QueuedChange[]): Promise<void> {
    let fresh = false;
    const turn = this.#turns.get(keyId);
    // After its own commit on a contended wallet, this process lets the other have a turn.
    if (turn !== undefined && turn > Date.now() && this.#contended(keyId)) {
      await new Promise((resolve) => setTimeout(resolve, turn - Date.now()));
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const startedAt = Date.now();
      const balance = await this.#readBalance(keyId, fresh);
      const batch = new LedgerBatch(this.#kv, keyId, balance, this.#caches);
      const planned = await batch.plan(changes);
      if (planned === "answered") return;
      fresh = true;
      if (planned === "needs_fresh_balance") continue;
      // kv-locked: a lock makes commit() answer false, and this loop plans the batch again.
      if (planned === "planned" && await batch.commit(changes)) {
        // The other process's retry takes about as long as this attempt did.
        if (this.#contended(keyId)) this.#turns.set(keyId, Date.now() + (Date.now() - startedAt));
        else this.#turns.delete(keyId);
        return;
      }
      // KV was locked or the balance moved: wait a little longer each time, then plan again;
      // against another process, not longer each time (it does not back off while it wins).
      const backoff = this.#contended(keyId) ? 5 : 5 * (attempt + 1);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * backoff));
    }
    throw new GatewayError("ledger_busy", 503, "The ledger is busy; retry the request", {
      retryable: true,
    });
  }

  /**
   * Whether a hold of `amount` will pass by what this process knows (its cached balance less the
   * holds it has queued). A caller may then start work while the hold commits; it must still
   * wait for the hold before answering, since another instance may have spent the money.
   */
  covers(keyId: string, { limit, amount }: { limit: SpendingLimit; amount: number }): boolean {
    if (limit.unlimited) return true;
    const cached = this.#caches.balances.get(keyId);
    if (!cached?.versionstamp) return false;
    const pending = this.#pendingHolds.get(keyId) ?? 0;
    const leases = this.#caches.leases.get(keyId);
    if (leases?.versionstamp !== cached.versionstamp) return false;
    const leased = leasedUnits(leases.leases);
    return (cached.value ?? 0) - pending - leased - amount >= -limit.credit_limit;
  }

  /** The current balance of a key, in units. */
  async balance(keyId: string): Promise<number> {
    return (await this.#kv.get<number>(kvKeys.balance(keyId))).value ?? 0;
  }

  /** Balances of many keys (KV reads at most 10 at once). */
  async balances(keyIds: string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    for (let i = 0; i < keyIds.length; i += 10) {
      const slice = keyIds.slice(i, i + 10);
      const entries = await this.#kv.getMany<number[]>(slice.map((id) => kvKeys.balance(id)));
      entries.forEach((entry, index) => result.set(slice[index], entry.value ?? 0));
    }
    return result;
  }

  /**
   * Adds (or, when negative, takes) money. A `ref` makes the credit happen once only. A credit
   * that would take the balance past ±MAX_BALANCE is refused (409 `balance_overflow`), and so is
   * an amount that is not a safe integer (400): nothing is written either way.
   */
  async credit(
    keyId: string,
    amount: number,
    options: { note?: string; ref?: string } = {},
  ): Promise<LedgerEntry> {
    const entry = await this.#credit(keyId, amount, options);
    if (entry === GUARD_REFUSED) throw new Error("unreachable: a credit without a guard");
    return entry;
  }

  /**
   * A credit that happens only if `guard` allows it, in the same atomic commit: the guard reads
   * what it depends on (e.g. a redemption code's record), adds its checks and writes to `atomic`
   * and returns true, or returns false to write nothing. When another writer moves what the
   * guard checked, the commit fails and the guard runs again on fresh reads, so the credit and
   * the guard's writes land together exactly once. Resolves null when the guard said no, or when
   * a credit with `ref` was made already (then the guard is not asked).
   */
  async creditGuarded(
    keyId: string,
    amount: number,
    options: { note?: string; ref: string; guard: (atomic: KvAtomic) => Promise<boolean> },
  ): Promise<LedgerEntry | null> {
    const entry = await this.#credit(keyId, amount, options);
    return entry === GUARD_REFUSED ? null : entry;
  }

  async #credit(
    keyId: string,
    amount: number,
    options: { note?: string; ref?: string; guard?: (atomic: KvAtomic) => Promise<boolean> },
  ): Promise<LedgerEntry | typeof GUARD_REFUSED> {
    const ref = options.ref ?? timeOrderedId("cr");
    if (!Number.isSafeInteger(amount)) {
      throw new GatewayError(
        "invalid_amount",
        400,
        `A credit must be a whole number of units from -${MAX_BALANCE} to ${MAX_BALANCE}`,
        { param: "amount" },
      );
    }
    let refused = false;
    const change = this.#change(keyId, async ({ atomic, balance, cached }) => {
      refused = false;
      // Checked before anything is added to the commit: a refused credit writes nothing.
      if (Math.abs(balance + amount) > MAX_BALANCE) {
        // Another instance may have moved the balance since this one last looked.
        if (cached) return NEEDS_FRESH_BALANCE;
        throw new GatewayError(
          "balance_overflow",
          409,
          `A credit of ${amount} units would take key '${keyId}' from ${balance} to ${
            balance + amount
          } units, past the ${
            amount > 0 ? "largest" : "smallest"
          } balance the ledger keeps exactly (${amount > 0 ? "" : "-"}${MAX_BALANCE}); ` +
            `nothing was written`,
          { param: "amount" },
        );
      }
      if (options.ref) {
        const seen = await this.#kv.get(kvKeys.ledgerRef(`credit:${ref}`));
        if (seen.versionstamp) return null;
        atomic.check(seen).set(kvKeys.ledgerRef(`credit:${ref}`), keyId);
      }
      // After the ref: a credit made already returns above, before the guard writes anything.
      if (options.guard && !(await options.guard(atomic))) {
        refused = true;
        return GUARD_REFUSED;
      }
      return { type: "credit", amount, ref, note: options.note };
    }, options.ref !== undefined || options.guard !== undefined);
    const entry = await this.whileStoreAnswers(change).catch((error) => {
      if (!isStoreUnavailable(error)) throw error;
      throw new GatewayError(
        "store_unavailable",
        503,
        `${error.message.replace(/; retry shortly$/, "")}. The credit is still queued and is ` +
          "written when the store answers: read the ledger before trying again, or give the " +
          "credit a ref so that it happens once",
        { retryable: false },
      );
    });
    // A guarded credit whose ref was credited already is refused like one its guard refused.
    if (refused || (!entry && options.guard)) return GUARD_REFUSED;
    if (!entry) {
      throw new GatewayError(
        "duplicate_credit",
        409,
        `A credit with ref '${ref}' was already made`,
      );
    }
    return entry;
  }

  /**
   * Holds `amount` for request or task `ref`. Refuses with 402 `insufficient_balance` when the
   * balance would drop below the key's floor.
   */
  async hold(keyId: string, options: HoldOptions) {
    const { limit, ref, amount } = options;
    if (!Number.isSafeInteger(amount) || amount < 0) {
      // A request whose worst case is beyond exact integer money (max_tokens near 2^53) can
      // never be covered; refused before anything is queued.
      throw new GatewayError(
        "insufficient_balance",
        402,
        `Cannot hold funds for key '${keyId}': the request could cost up to ${amount} units, ` +
          "more than any balance; ask for fewer tokens",
        { retryable: false },
      );
    }
    this.#pendingHolds.set(keyId, (this.#pendingHolds.get(keyId) ?? 0) + amount);
    const walletId = keyId;
    const capsKey = options.keyId ?? walletId;
    const change = this.#change(walletId, async (view) => {
      const { balance, cached } = view;
      const nowMs = Date.now();
      const keyId = capsKey;
      const windows = spendWindowsAt(nowMs);
      const spendKeys = windows.map((window) => kvKeys.spendCounter(keyId, window.id));
      const tpm = options.caps?.tpm ?? null;
      const tokens = tpm === null ? 0 : options.tokens ?? 0;
      const tokenKey = kvKeys.tokenCounter(keyId, minuteAt(nowMs));
      // Only counters with a cap are read; the others are summed in the commit without a read.
      const limits = options.caps?.spend_limits ?? {};
      const capped = windows.filter((window) => limits[window.period] != null);
      const cappedKeys = capped.map((window) => kvKeys.spendCounter(keyId, window.id));
      const toRead = tokens ? [...cappedKeys, tokenKey] : cappedKeys;
      const counted = toRead.length ? await view.readCounters(toRead) : [];
      const spendRefusal = spendCapRefusal(
        capped.map((window, index) => ({ window, spent: counted[index] })),
        { limits, amount, nowMs, remedy: options.remedy },
      );
      if (spendRefusal) throw spendRefusal;
      const tokensRefusal = tokens
        ? tpmRefusal(counted[cappedKeys.length], {
          tpm: tpm!,
          tokens,
          nowMs,
          remedy: options.remedy,
        })
        : null;
      if (tokensRefusal) throw tokensRefusal;
      const leased = limit.unlimited ? 0 : leasedUnits(await view.readLeases());
      if (!limit.unlimited && balance - leased - amount < -limit.credit_limit) {
        // Another instance may have added credit since this one last looked.
        if (cached) return NEEDS_FRESH_BALANCE;
        throw new GatewayError(
          "insufficient_balance",
          402,
          `Cannot hold funds for key '${keyId}': ${
            balance + limit.credit_limit - leased
          } units are available, the request needs up to ${amount}; add credit${
            options.remedy ? ` or ${options.remedy}` : ""
          }`,
          { retryable: false },
        );
      }
      // A ref made fresh for this request (a request id) cannot exist yet: skip the read.
      if (!options.uniqueRef && await view.readHold(ref)) return null;
      view.writeHold(ref, {
        key_id: keyId,
        ...(walletId !== keyId && { wallet_id: walletId }),
        amount,
        at: new Date(nowMs).toISOString(),
        ...(this.#instanceId && { instance: this.#instanceId }),
        spend_windows: windows.map((window) => window.id),
        ...(tokens && { tokens, minute: minuteAt(nowMs) }),
      });
      await view.addToCounters([
        ...spendKeys.map((key) => ({ key, delta: amount })),
        ...(tokens ? [{ key: tokenKey, delta: tokens, expireIn: TOKEN_COUNTER_TTL_MS }] : []),
      ]);
      options.alsoWrite?.(view.atomic);
      return { type: "hold", amount: -amount, ref, key_id: keyId };
    });
    const entry = await change.finally(() => {
      const left = (this.#pendingHolds.get(keyId) ?? 0) - amount;
      if (left > 0) this.#pendingHolds.set(keyId, left);
      else this.#pendingHolds.delete(keyId);
    });
    if (!entry) {
      throw new GatewayError("duplicate_hold", 409, `Funds for '${ref}' are already held`);
    }
    return entry;
  }

  /**
   * Settles hold `ref` to the real `cost`: the entry gives back held − cost. With a credit floor,
   * what is collected never takes the balance below it; the rest is recorded as `shortfall`.
   * Returns null when the hold was already settled or released.
   */
  settle(
    keyId: string,
    options: CloseOptions & {
      limit: SpendingLimit;
      ref: string;
      cost: number;
      /** Tokens the request used, replacing its held tokens in its minute's count. */
      tokens?: number;
    },
  ) {
    const { limit, ref, cost } = options;
    return this.#close(keyId, ref, options, async (hold, view) => {
      const held = hold.amount;
      // Beyond the hold, the cost is taken from what no lease of the key has reserved.
      const floor = limit.unlimited || cost <= held
        ? -Infinity
        : -limit.credit_limit + leasedUnits(await view.readLeases());
      const collected = Math.min(cost, Math.max(held, held + view.balance - floor));
      const shortfall = cost - collected;
      await view.addToCounters(shortfallCounter(hold.key_id, shortfall));
      return { type: "settle", amount: held - collected, ref, cost, shortfall };
    });
  }

  /**
   * Charges `cost` for `ref` in one entry, with no hold before it: for keys without a limit,
   * where a hold reserves nothing. `ref` must be fresh (a request id), so it is charged once.
   */
  charge(
    walletId: string,
    { ref, cost, keyId = walletId }: { ref: string; cost: number; keyId?: string },
  ): Promise<LedgerEntry | null> {
    return this.#change(walletId, async (view) => {
      await view.addToCounters(
        spendWindowsAt(Date.now()).map((window) => ({
          key: kvKeys.spendCounter(keyId, window.id),
          delta: cost,
        })),
      );
      return { type: "charge", amount: -cost, ref, cost, key_id: keyId };
    });
  }

  /**
   * Takes or renews this process's budget lease on `keyId`: reserves `want` units, or what the
   * key has left if less, but at least `need` (else 402 `insufficient_balance`, saying `free`
   * units of the lease are still there). The balance does not move: the entry's amount is 0.
   */
  takeLease(
    keyId: string,
    options: { limit: SpendingLimit; need: number; want: number; free?: number; remedy?: string },
  ): Promise<LedgerEntry> {
    return this.#lease(keyId, options) as Promise<LedgerEntry>;
  }

  /**
   * Adds to this process's budget lease on `keyId` up to `want` units, as many as the key has
   * left down to its floor, never refused: a request that cost more than it reserved takes the
   * rest from here. Resolves with the lease entry, or null when nothing was left.
   */
  extendLease(
    keyId: string,
    options: { limit: SpendingLimit; want: number },
  ): Promise<LedgerEntry | null> {
    return this.#lease(keyId, { ...options, need: 0 });
  }

  #lease(
    keyId: string,
    options: { limit: SpendingLimit; need: number; want: number; free?: number; remedy?: string },
  ): Promise<LedgerEntry | null> {
    const { limit, need, want } = options;
    const instance = this.instanceId;
    return this.#change(keyId, async (view) => {
      const leases = await view.readLeases();
      const mine = leases.get(instance);
      const available = limit.unlimited
        ? Infinity
        : view.balance + limit.credit_limit - leasedUnits(leases);
      // Nothing needed (an extension) is never refused; its commit still checks the balance.
      if (need > 0 && (!(available >= need) || !Number.isSafeInteger(need))) {
        if (view.cached) return NEEDS_FRESH_BALANCE;
        throw new GatewayError(
          "insufficient_balance",
          402,
          `Cannot hold funds for key '${keyId}': ${
            Math.max(0, available) + (options.free ?? 0)
          } units are available, the request needs up to ${need + (options.free ?? 0)}; add credit${
            options.remedy ? ` or ${options.remedy}` : ""
          }`,
          { retryable: false },
        );
      }
      const reserved = Math.max(0, Math.min(want, available));
      if (reserved === 0) return null;
      const ref = mine?.ref ?? timeOrderedId("ls");
      view.writeLease(instance, {
        key_id: keyId,
        instance,
        ref,
        amount: (mine?.amount ?? 0) + reserved,
        at: mine?.at ?? new Date().toISOString(),
      });
      return { type: "lease", amount: 0, ref, reserved, instance };
    });
  }

  /**
   * Writes the summed `cost` of `requests` requests finished up to `through` as one charge
   * entry. With `leaseRef`, the costs were spent from that lease of this process: the lease
   * shrinks by as much. A lease swept meanwhile (this process was taken for dead) is not there
   * to shrink; the charge is still written, since the requests were answered. `leaseKept` says
   * whether the lease was there.
   */
  async chargeAggregated(
    walletId: string,
    options: {
      /** The key whose requests these are (default: the wallet id itself). */
      keyId?: string;
      cost: number;
      requests: number;
      through: string;
      leaseRef?: string;
      /** What the requests' costs came to beyond `cost`, left uncollected by the floor. */
      shortfall?: number;
    },
  ): Promise<{ entry: LedgerEntry; leaseKept: boolean }> {
    const { cost, leaseRef } = options;
    const instance = this.instanceId;
    let leaseKept = false;
    const keyId = options.keyId ?? walletId;
    const entry = await this.#change(walletId, async (view) => {
      leaseKept = false;
      if (leaseRef) {
        const mine = (await view.readLeases()).get(instance);
        if (mine?.ref === leaseRef) {
          leaseKept = true;
          view.writeLease(instance, { ...mine, amount: Math.max(0, mine.amount - cost) });
        }
      }
      const shortfall = options.shortfall ?? 0;
      await view.addToCounters([
        ...spendWindowsAt(Date.now()).map((window) => ({
          key: kvKeys.spendCounter(keyId, window.id),
          delta: cost,
        })),
        ...shortfallCounter(keyId, shortfall),
      ]);
      return {
        type: "charge",
        amount: -cost,
        key_id: keyId,
        ref: leaseRef ?? `charges_${instance}`,
        cost,
        ...(shortfall > 0 && { shortfall }),
        requests: options.requests,
        through: options.through,
        instance,
      };
    });
    return { entry: entry!, leaseKept };
  }

  /**
   * Gives up `instance`'s lease `ref` on `keyId` (default: this process's). Returns null when it
   * was returned already, by its owner or by a sweep: a lease is returned once.
   */
  returnLease(
    keyId: string,
    options: { ref: string; note: string; instance?: string },
  ): Promise<LedgerEntry | null> {
    const instance = options.instance ?? this.instanceId;
    return this.#change(keyId, async (view) => {
      const lease = (await view.readLeases()).get(instance);
      if (lease?.ref !== options.ref) return null;
      view.writeLease(instance, null);
      return {
        type: "lease_return",
        amount: 0,
        ref: options.ref,
        returned: lease.amount,
        note: options.note,
        instance,
      };
    });
  }

  /** Gives hold `ref` back in full. Returns null when it was already settled or released. */
  release(keyId: string, options: CloseOptions & { ref: string; note?: string }) {
    const { ref, note } = options;
    return this.#close(
      keyId,
      ref,
      { ...options, tokens: 0 },
      (hold) => ({ type: "release", amount: hold.amount, ref, note }),
    );
  }

  #close(
    keyId: string,
    ref: string,
    options: CloseOptions & { tokens?: number },
    compute: (hold: OpenHold, view: BatchView) => PlannedEntry | Promise<PlannedEntry>,
  ): Promise<LedgerEntry | null> {
    return this.#change(keyId, async (view) => {
      if (options.guard && !(await options.guard(view.atomic))) return GUARD_REFUSED;
      const hold = await view.readHold(ref);
      if (!hold) return null;
      view.writeHold(ref, null);
      const planned = { key_id: hold.key_id, ...(await compute(hold, view)) };
      await view.addToCounters(closingCounterChanges({ hold, planned, options }));
      return planned;
    }, options.guard !== undefined);
  }

  /**
   * Units each key spent or holds in the current day, week and month windows (UTC): what the
   * spend caps count.
   */
  async periodSpend(
    keyIds: string[],
    nowMs = Date.now(),
  ): Promise<Map<string, Record<SpendPeriod, number>>> {
    const windows = spendWindowsAt(nowMs);
    const keys = keyIds.flatMap((id) =>
      windows.map((window) => kvKeys.spendCounter(id, window.id))
    );
    const values: number[] = [];
    for (let i = 0; i < keys.length; i += 10) {
      const found = await this.#kv.getMany<Deno.KvU64[]>(keys.slice(i, i + 10));
      for (const entry of found) values.push(counterValue(entry.value));
    }
    const result = new Map<string, Record<SpendPeriod, number>>();
    keyIds.forEach((id, index) => {
      const [day, week, month] = values.slice(index * 3, index * 3 + 3);
      result.set(id, { day, week, month });
    });
    return result;
  }

  /** Units of each key's costs its credit floor left uncollected, over its life. */
  async shortfalls(keyIds: string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    for (let i = 0; i < keyIds.length; i += 10) {
      const slice = keyIds.slice(i, i + 10);
      const found = await this.#kv.getMany<Deno.KvU64[]>(
        slice.map((id) => kvKeys.shortfallTotal(id)),
      );
      found.forEach((entry, index) => result.set(slice[index], counterValue(entry.value)));
    }
    return result;
  }

  /**
   * Releases the request holds their process left behind: holds whose instance's lease ran out
   * (the process died between hold and settle), and holds without an instance (written before
   * instances were recorded) older than `maxAgeMs`. Task holds are the task worker's. Each
   * release is an entry saying why; a hold is released at most once, whoever sweeps. Then
   * returns the budget leases of dead instances, each once. Counts both.
   */
  async releaseOrphanedHolds(
    options: { isAlive(instanceId: string): Promise<boolean>; maxAgeMs: number },
  ): Promise<number> {
    let released = 0;
    const cutoff = Date.now() - options.maxAgeMs;
    const alive = new Map<string, Promise<boolean>>();
    for await (const entry of this.#kv.list<OpenHold>({ prefix: kvKeys.openHolds() })) {
      const ref = String(entry.key[1]);
      if (ref.startsWith("task_")) continue;
      const hold = entry.value;
      let note: string;
      if (hold.instance) {
        if (!alive.has(hold.instance)) alive.set(hold.instance, options.isAlive(hold.instance));
        if (await alive.get(hold.instance)) continue;
        note = `released: instance ${hold.instance} stopped renewing its lease (the process died)`;
      } else {
        if (Date.parse(hold.at) > cutoff) continue;
        note = "stale hold released";
      }
      if (await this.release(hold.wallet_id ?? hold.key_id, { ref, note })) released++;
    }
    for await (const entry of this.#kv.list<BudgetLease>({ prefix: kvKeys.budgetLeases() })) {
      const lease = entry.value;
      if (!alive.has(lease.instance)) alive.set(lease.instance, options.isAlive(lease.instance));
      if (await alive.get(lease.instance)) continue;
      const returned = await this.returnLease(lease.wallet_id ?? lease.key_id, {
        ref: lease.ref,
        instance: lease.instance,
        note: `returned: instance ${lease.instance} stopped renewing its lease (the process died)`,
      });
      if (returned) released++;
    }
    return released;
  }

  /** Entries of one key, or of every key, newest first unless `options.order` is `asc`. */
  async list(keyId: string | undefined, options: ListOptions) {
    const bound = (ms: number) => idTimeBound("le", ms);
    if (keyId) {
      const iterator = this.#kv.list<LedgerEntry>(
        timeRangeSelector(kvKeys.ledgerOfKey(keyId), bound, options),
        kvListOptions(options),
      );
      const data: LedgerEntry[] = [];
      for await (const entry of iterator) data.push(entry.value);
      return { data, cursor: data.length === options.limit ? iterator.cursor : null };
    }
    const iterator = this.#kv.list<string>(
      timeRangeSelector(kvKeys.ledgersByTime(), bound, options),
      kvListOptions(options),
    );
    const keys: Array<readonly [string, string, string]> = [];
    for await (const entry of iterator) {
      keys.push(kvKeys.ledgerEntry(entry.value, entry.key[1] as string));
    }
    const data: LedgerEntry[] = [];
    for (let i = 0; i < keys.length; i += 10) {
      const found = await this.#kv.getMany<LedgerEntry[]>(keys.slice(i, i + 10));
      for (const entry of found) if (entry.value) data.push(entry.value);
    }
    return { data, cursor: keys.length === options.limit ? iterator.cursor : null };
  }
}
