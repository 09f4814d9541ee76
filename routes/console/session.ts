/**
 * The console's session middleware: reads the session cookie, checks the session in KV (and, for
 * a key holder, that the key still exists, is enabled, has not expired and allows the request's
 * address), and refuses a POST
 * that does not carry the session's CSRF token. Signed-out visitors are sent to the sign-in page.
 */

import type { MiddlewareHandler } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import type { ConsoleSession } from "../../core/console/session_store.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { checkIpAllowlist } from "../../core/keys/ip_allowlist.ts";
import type { KeyRecord } from "../../core/keys/key_schema.ts";
import { type ConsoleEnv, SESSION_COOKIE } from "./console_env.ts";
import { checkCsrfToken, checkOrigin } from "./csrf.ts";
import { readForm } from "./form_body.ts";

/** The holder's key while it is usable (exists, enabled, not expired); else null. */
async function holderKey(gateway: Gateway, keyId: string) {
  try {
    const key = await gateway.keys.get(keyId);
    const usable = key.enabled && (!key.expires_at || Date.parse(key.expires_at) > Date.now());
    return usable ? key : null;
  } catch (error) {
    if (error instanceof GatewayError && error.status === 404) return null;
    throw error;
  }
}

async function memberUsable(gateway: Gateway, memberId: string): Promise<boolean> {
  const member = await gateway.members.store.find(memberId);
  return member !== null && !member.disabled;
}

/**
 * The live session of the request's cookie; a holder session whose key went, or a member session
 * whose member went or was disabled, is ended; a holder session whose key's IP allowlist leaves
 * out `address` is not honoured from there.
 */
async function sessionOf(
  gateway: Gateway,
  { cookie, address }: { cookie: string | undefined; address: string },
): Promise<ConsoleSession | null> {
  if (!cookie) return null;
  const session = await gateway.consoleSessions.get(cookie);
  if (!session) return null;
  if (session.role.kind === "member" && !(await memberUsable(gateway, session.role.memberId))) {
    await gateway.consoleSessions.delete(session.id);
    return null;
  }
  if (session.role.kind !== "holder") return session;
  const key = await holderKey(gateway, session.role.keyId);
  if (!key) {
    await gateway.consoleSessions.delete(session.id);
    return null;
  }
  return key.ip_allowlist && !allowsAddress(key, address) ? null : session;
}

function allowsAddress(key: Pick<KeyRecord, "prefix" | "ip_allowlist">, address: string) {
  try {
    checkIpAllowlist(key, address);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the session (when there is one) and guards every POST: its origin always, and its CSRF
 * token when signed in (the sign-in form itself has no session yet).
 */
export function loadSession(gateway: Gateway): MiddlewareHandler<ConsoleEnv> {
  return async function consoleSession(c, next) {
    const isPost = c.req.method === "POST";
    if (isPost) checkOrigin(gateway, c.req.raw);
    const session = await sessionOf(gateway, {
      cookie: getCookie(c, SESSION_COOKIE),
      address: c.get("clientAddress") ?? "unknown",
    });
    if (session) c.set("session", session);
    else if (getCookie(c, SESSION_COOKIE)) deleteCookie(c, SESSION_COOKIE, { path: "/console" });
    if (isPost && session && c.get("url").pathname !== "/console/sign-in") {
      checkCsrfToken((await readForm(c)).csrf, session.csrf);
    }
    await next();
  };
}

/** Sends a signed-out visitor to the sign-in page (and back here after it). */
export function requireSession(): MiddlewareHandler<ConsoleEnv> {
  return async function consoleRequireSession(c, next) {
    if (c.get("session")) return await next();
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      throw new GatewayError("not_signed_in", 403, "Sign in to the console first");
    }
    const url = c.get("url");
    const next_ = `${url.pathname}${url.search}`;
    const target = next_ === "/console" ? "" : `?next=${encodeURIComponent(next_)}`;
    return c.redirect(`/console/sign-in${target}`, 303);
  };
}

/** Lets only the operator through; a key holder gets a 403 page. */
export function requireOperator(): MiddlewareHandler<ConsoleEnv> {
  return async function consoleRequireOperator(c, next) {
    if (c.get("session")?.role.kind === "operator") return await next();
    throw new GatewayError(
      "operator_only",
      403,
      "This page is for the gateway's operator; signed in with a client key you can see " +
        "your own key, requests and tasks",
    );
  };
}
