/**
 * Automatic disabling, the pure rules. A channel key the upstream refuses (401/403) N times in a
 * row, or a whole channel whose every attempt failed for longer than a setting, is disabled by
 * the gateway with its reason. This is a mark of its own beside the operator's `enabled`: the
 * gateway sets and clears only its mark (a recovery probe that passes clears it), and never
 * touches `enabled`, so an operator-disabled channel stays disabled.
 */

import type { Channel } from "./channel_schema.ts";
import type { AutoDisabled, AutoMark } from "./auto_marks.ts";

export type { AutoDisabled, AutoMark };

export const DEFAULT_REFUSALS_TO_DISABLE = 3;
export const DEFAULT_DISABLE_AFTER_MS = 5 * 60_000;

/** The waits before each recovery probe: 30 s, 1 min, 2 min, 5 min, then every 10 min. */
export const PROBE_DELAYS_MS = [30_000, 60_000, 120_000, 300_000, 600_000] as const;

export const NO_MARKS: AutoDisabled = { channel: null, by_key: {} };

/** The wait before the next probe after `probes` failed ones. */
export function probeDelayMs(probes: number): number {
  return PROBE_DELAYS_MS[Math.min(probes, PROBE_DELAYS_MS.length - 1)];
}

/** A fresh mark at `now` with its first probe due. */
export function newMark(reason: string, now: number): AutoMark {
  return {
    reason,
    at: new Date(now).toISOString(),
    probes: 0,
    next_probe_at: now + probeDelayMs(0),
  };
}

/** The mark after one more failed probe at `now`. */
export function afterFailedProbe(mark: AutoMark, now: number): AutoMark {
  const probes = mark.probes + 1;
  return { ...mark, probes, next_probe_at: now + probeDelayMs(probes) };
}

/** Whether `marks` disable nothing. */
export function isEmpty(marks: AutoDisabled): boolean {
  return marks.channel === null && Object.keys(marks.by_key).length === 0;
}

/** The indexes of `channel`'s keys the gateway has not disabled. */
export function usableKeyIndexes(channel: Channel): number[] {
  const marked = channel.auto_disabled?.by_key ?? {};
  const indexes: number[] = [];
  channel.keys.forEach((key, index) => {
    const fingerprint = channel.fingerprints?.get(key);
    if (fingerprint === undefined || !marked[fingerprint]) indexes.push(index);
  });
  return indexes;
}

/** Whether routing may use `channel`: not disabled whole, and with a key left. */
export function isAutoUsable(channel: Channel): boolean {
  if (!channel.auto_disabled) return true;
  return channel.auto_disabled.channel === null && usableKeyIndexes(channel).length > 0;
}

/** What one attempt says about its channel, for the rules below. */
export type AttemptVerdict = "ok" | "key_refused" | "channel_fault" | "neither";

/**
 * Reads an attempt: a 401/403 refuses the key; a timeout, a network failure, a 5xx, a 404 or a
 * broken answer is the channel's fault; the client's own errors (400, 422, content policy), a
 * client that went away and a 429 (rate limits are the breakers' business) say nothing.
 */
export function attemptVerdict(
  outcome: "ok" | "failed",
  failure?: { status?: number; errorClass: string },
): AttemptVerdict {
  if (outcome === "ok") return "ok";
  if (!failure) return "neither";
  const { status, errorClass } = failure;
  if (status === 401 || status === 403) return "key_refused";
  if (errorClass === "client_closed" || status === 429) return "neither";
  if (status !== undefined && status < 500 && status !== 404 && status !== 408) {
    return errorClass.startsWith("http_") ? "neither" : "channel_fault";
  }
  return "channel_fault";
}

/** The channel's setting, or its default. */
export function refusalsToDisable(channel: Pick<Channel, "auto_disable_refusals">): number {
  return channel.auto_disable_refusals ?? DEFAULT_REFUSALS_TO_DISABLE;
}

/** The channel's setting, or its default. */
export function disableAfterMs(channel: Pick<Channel, "auto_disable_after_ms">): number {
  return channel.auto_disable_after_ms ?? DEFAULT_DISABLE_AFTER_MS;
}
