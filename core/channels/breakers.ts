/**
 * A circuit breaker, as a pure state machine over an injected clock: closed → open → half-open.
 * Closed, it keeps the outcomes of the last `window` attempts and opens when at least
 * `min_failures` of them failed and they are at least `failure_rate` of the window (or at once,
 * for an upstream refusing a key). Open, it is skipped until its cooldown ends; the cooldown grows
 * with each opening in a row (`cooldowns_ms`, the last repeated). Then it is half-open: one probe
 * passes; its success closes the breaker, its failure opens it again for longer. Apart from that,
 * a 429's `retry-after` sets a breaker aside until the time it names, whatever its state.
 */

export interface BreakerSettings {
  /** Failures in the window needed to open. */
  min_failures: number;
  /** Share of the window's attempts that must have failed to open (0–1). */
  failure_rate: number;
  /** Attempts the window keeps. */
  window: number;
  /** The cooldown of the first opening, the second, …; the last one repeats. */
  cooldowns_ms: number[];
}

export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = {
  min_failures: 5,
  failure_rate: 0.5,
  window: 20,
  cooldowns_ms: [10_000, 30_000, 120_000, 600_000],
};

/** The part of a breaker every instance shares (written to the store). */
export interface SharedBreaker {
  /** While now < open_until the breaker is open; past it, half-open until a probe ends. */
  open_until?: number;
  /** Openings in a row without a close: picks the next cooldown. */
  openings: number;
  /** A 429's `retry-after`: skipped until then. */
  aside_until?: number;
  /** The last reasons it opened or was set aside, newest last. */
  reasons: BreakerReason[];
}

export interface BreakerReason {
  at: number;
  reason: string;
}

/** A breaker: the shared part, and this instance's window of recent outcomes (true = failed). */
export interface Breaker extends SharedBreaker {
  window: boolean[];
}

export type BreakerPhase = "closed" | "open" | "half_open";

/** Why routing skipped a breaker. */
export type SkipReason = "breaker_open" | "retry_after";

/** What routing may do with a breaker now. */
export type Admission =
  | { kind: "pass" }
  | { kind: "probe" }
  | { kind: "skip"; reason: SkipReason; until: number };

const REASONS_KEPT = 5;

export function closedBreaker(): Breaker {
  return { openings: 0, reasons: [], window: [] };
}

export function breakerPhase(breaker: SharedBreaker, now: number): BreakerPhase {
  if (breaker.open_until === undefined) return "closed";
  return now < breaker.open_until ? "open" : "half_open";
}

/** Whether a request may use this breaker's channel or key now, as a probe, or not at all. */
export function admission(breaker: SharedBreaker, now: number): Admission {
  if (breaker.aside_until !== undefined && now < breaker.aside_until) {
    return { kind: "skip", reason: "retry_after", until: breaker.aside_until };
  }
  const phase = breakerPhase(breaker, now);
  if (phase === "open") return { kind: "skip", reason: "breaker_open", until: breaker.open_until! };
  return { kind: phase === "half_open" ? "probe" : "pass" };
}

function withReason(reasons: readonly BreakerReason[], reason: BreakerReason): BreakerReason[] {
  return [...reasons, reason].slice(-REASONS_KEPT);
}

/** The cooldown of opening number `opening` (1 for the first). */
export function cooldownMs(settings: BreakerSettings, opening: number): number {
  const list = settings.cooldowns_ms.length
    ? settings.cooldowns_ms
    : DEFAULT_BREAKER_SETTINGS.cooldowns_ms;
  return list[Math.min(opening, list.length) - 1];
}

function opened(breaker: Breaker, reason: string, settings: BreakerSettings, now: number): Breaker {
  const openings = breaker.openings + 1;
  return {
    ...breaker,
    openings,
    open_until: now + cooldownMs(settings, openings),
    reasons: withReason(breaker.reasons, { at: now, reason }),
    window: [],
  };
}

/**
 * `breaker` after a failure that is the channel's (or key's) fault. `immediate` opens it at once
 * (the upstream refused the key). A failed half-open probe opens it again, for longer.
 */
export function afterFailure(
  breaker: Breaker,
  failure: { reason: string; immediate?: boolean },
  settings: BreakerSettings,
  now: number,
): Breaker {
  const phase = breakerPhase(breaker, now);
  if (phase === "open") return breaker;
  if (phase === "half_open" || failure.immediate) {
    return opened(breaker, failure.reason, settings, now);
  }
  const window = [...breaker.window, true].slice(-settings.window);
  const failures = window.filter(Boolean).length;
  if (failures >= settings.min_failures && failures / window.length >= settings.failure_rate) {
    return opened(breaker, failure.reason, settings, now);
  }
  return { ...breaker, window };
}

/** `breaker` after a success: closed (a half-open probe's success closes it). */
export function afterSuccess(breaker: Breaker, settings: BreakerSettings, now: number): Breaker {
  if (breakerPhase(breaker, now) !== "closed") {
    return { ...breaker, open_until: undefined, openings: 0, window: [] };
  }
  // Kept as it is when nothing would change: the hot path's common case allocates nothing.
  if (breaker.window.length === settings.window && !breaker.window.includes(true)) return breaker;
  return { ...breaker, window: [...breaker.window, false].slice(-settings.window) };
}

/** `breaker` set aside until `until` (a 429's `retry-after`). */
export function setAside(breaker: Breaker, until: number, reason: string, now: number): Breaker {
  return {
    ...breaker,
    aside_until: Math.max(until, breaker.aside_until ?? 0),
    reasons: withReason(breaker.reasons, { at: now, reason }),
  };
}

/** Whether a breaker differs from a closed one in anything other instances should know. */
export function isShared(breaker: SharedBreaker, now: number): boolean {
  return breaker.open_until !== undefined ||
    (breaker.aside_until !== undefined && breaker.aside_until > now);
}
