/**
 * Which attempt failures are the channel's fault, as the breakers count them: connection errors,
 * timeouts, 5xx, the upstream's 401/403/404/408/409/429 and answers the gateway could not read.
 * A failure that is final for the request (the client's 400/422, a content policy refusal) and a
 * client that went away are never the channel's.
 */

import type { BreakerFault } from "../channels/breaker_board.ts";
import type { UpstreamAttemptError } from "./attempt.ts";

/** The breakers' view of `failure`, or null when it is not the channel's fault. */
export function breakerFault(
  failure: UpstreamAttemptError,
  wallNow: number = Date.now(),
): BreakerFault | null {
  if (!failure.retryable || failure.errorClass === "client_closed") return null;
  const refused = failure.errorClass === "http_401" || failure.errorClass === "http_403" ||
    failure.message.includes("upstream credential was refused");
  const rateLimited = failure.status === 429 || failure.errorClass === "http_429";
  return {
    reason: failure.errorClass,
    refused,
    rateLimited,
    ...(rateLimited && failure.retryAfter !== undefined && {
      retryAfterMs: retryAfterMs(failure.retryAfter, wallNow),
    }),
  };
}

/** A `retry-after` value (delay-seconds or an HTTP-date) as ms from `wallNow`, never negative. */
export function retryAfterMs(value: string, wallNow: number): number {
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - wallNow) : 0;
}
