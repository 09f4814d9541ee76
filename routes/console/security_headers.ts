/**
 * The headers of every console response: a strict Content-Security-Policy whose only inline
 * style and script are the ones carrying this response's nonce, no framing, no referrer to other
 * sites, no sniffing, no caching (pages show balances and, once, secrets).
 */

import type { MiddlewareHandler } from "hono";
import { randomBase62 } from "../../core/util/ids.ts";
import type { ConsoleEnv } from "./console_env.ts";

/** The policy for a response whose nonce is `nonce`. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "media-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Sets a fresh nonce for the handlers and the security headers on whatever they answer. */
export function securityHeaders(): MiddlewareHandler<ConsoleEnv> {
  return async function consoleSecurityHeaders(c, next) {
    const nonce = randomBase62(24);
    c.set("nonce", nonce);
    await next();
    const headers = c.res.headers;
    headers.set("content-security-policy", contentSecurityPolicy(nonce));
    headers.set("x-frame-options", "DENY");
    headers.set("referrer-policy", "same-origin");
    headers.set("x-content-type-options", "nosniff");
    headers.set("cache-control", "no-store");
  };
}
