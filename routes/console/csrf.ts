/**
 * Cross-site request refusal for every state-changing console request (POST):
 *
 * 1. Where the request came from must be the gateway's own origin: `Origin` when the browser
 *    sends it (all current browsers do on POST); without it, `Sec-Fetch-Site` must be
 *    `same-origin`; without that, `Referer` must be on the own origin. A request with none of
 *    the three (not a browser: curl, a script) is judged by step 2 alone.
 * 2. Once signed in, the form must carry the session's CSRF token (`csrf` field).
 *
 * Either failing is a 403 before any handler runs, so nothing changes.
 */

import type { Gateway } from "../../core/gateway.ts";
import { GatewayError } from "../../core/errors.ts";
import { constantTimeEqual } from "../../core/util/ids.ts";
import { ownOrigin } from "./console_env.ts";

export interface RequestSource {
  origin: string | null;
  secFetchSite: string | null;
  referer: string | null;
}

/** Why a POST with these headers is refused as cross-site, or null when its source is ours. */
export function crossSiteProblem(source: RequestSource, own: string): string | null {
  if (source.origin !== null) {
    return source.origin === own ? null : `Origin '${source.origin.slice(0, 100)}' is not ${own}`;
  }
  if (source.secFetchSite !== null) {
    return source.secFetchSite === "same-origin"
      ? null
      : `Sec-Fetch-Site is '${source.secFetchSite.slice(0, 40)}', not same-origin`;
  }
  if (source.referer !== null) {
    let refererOrigin = "";
    try {
      refererOrigin = new URL(source.referer).origin;
    } catch {
      // an unreadable Referer is not our origin
    }
    return refererOrigin === own ? null : `Referer is not on ${own}`;
  }
  return null;
}

/** Throws 403 unless the request comes from the gateway's own origin (step 1). */
export function checkOrigin(gateway: Gateway, request: Request): void {
  const url = new URL(request.url);
  const problem = crossSiteProblem({
    origin: request.headers.get("origin"),
    secFetchSite: request.headers.get("sec-fetch-site"),
    referer: request.headers.get("referer"),
  }, ownOrigin(gateway, url));
  if (problem) {
    throw new GatewayError(
      "cross_site_request",
      403,
      `Refused a cross-site request: ${problem}. Nothing was changed`,
    );
  }
}

/** Throws 403 unless `presented` is the session's CSRF token (step 2). */
export function checkCsrfToken(presented: unknown, expected: string): void {
  if (typeof presented !== "string" || !constantTimeEqual(presented, expected)) {
    throw new GatewayError(
      "invalid_csrf_token",
      403,
      "Refused: the form's CSRF token is missing or not this session's; reload the page and " +
        "try again. Nothing was changed",
    );
  }
}
