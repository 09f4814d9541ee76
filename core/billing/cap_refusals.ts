/**
 * The refusals of a hold over a key's caps: 402 `spend_limit_exceeded` for a spend cap, 429
 * `tpm_limit_exceeded` for tokens per minute, each naming the limit and carrying `retry-after`
 * (seconds until the window that refused resets). Pure: the ledger passes what it read.
 */

import { GatewayError } from "../errors.ts";
import {
  minuteAt,
  PERIOD_WORDS,
  secondsUntil,
  type SpendLimits,
  type SpendWindow,
} from "./spend_windows.ts";

/** The 402 when `amount` more would take a capped window past its cap, else null. */
export function spendCapRefusal(
  windows: Array<{ window: SpendWindow; spent: number }>,
  request: { limits: SpendLimits; amount: number; nowMs: number; remedy?: string },
): GatewayError | null {
  const over = windows.filter(({ window, spent }) => {
    const limit = request.limits[window.period];
    return limit != null && spent + request.amount > limit;
  });
  if (!over.length) return null;
  // The request fits only once every refusing window has reset: wait for the latest.
  const last = over.reduce((a, b) => (b.window.endMs > a.window.endMs ? b : a));
  const retryAfter = secondsUntil(last.window.endMs, request.nowMs);
  const { window, spent } = over[0];
  const limit = request.limits[window.period]!;
  const words = PERIOD_WORDS[window.period];
  const alone = request.amount > limit;
  return new GatewayError(
    "spend_limit_exceeded",
    402,
    `${words.adjective[0].toUpperCase()}${words.adjective.slice(1)} spend limit of ${limit} ` +
      `units reached: ${spent} units are spent or held ${words.current} and the request needs ` +
      `up to ${request.amount}; ` +
      (alone
        ? `the request alone is over the limit${
          request.remedy ? `, ${request.remedy}` : ""
        } or raise the limit`
        : `retry after ${retryAfter} s, when the ${window.period} window resets, or raise the limit`),
    { headers: { "retry-after": String(retryAfter) }, retryable: false },
  );
}

/** The 429 when `tokens` more would take this minute past the key's tpm, else null. */
export function tpmRefusal(
  used: number,
  request: { tpm: number; tokens: number; nowMs: number; remedy?: string },
): GatewayError | null {
  const { tpm, tokens, nowMs } = request;
  if (used + tokens <= tpm) return null;
  const retryAfter = secondsUntil((minuteAt(nowMs) + 1) * 60_000, nowMs);
  const alone = tokens > tpm;
  return new GatewayError(
    "tpm_limit_exceeded",
    429,
    `Tokens-per-minute limit of ${tpm} reached: ${used} tokens are used or held this minute ` +
      `and the request needs up to ${tokens}; ` +
      (alone
        ? `the request alone is over the limit${request.remedy ? `, ${request.remedy}` : ""}`
        : `retry after ${retryAfter} s`),
    { headers: { "retry-after": String(retryAfter) } },
  );
}
