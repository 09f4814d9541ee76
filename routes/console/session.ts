/**
 * The console's session middleware: reads the session cookie, checks the session in KV (and, for
 * a key holder, that the key still exists, is enabled and has not expired), and refuses a POST
 * that does not carry the session's CSRF token. Signed-out visitors are sent to the sign-in page.
 */

import type { MiddlewareHandler } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import type { ConsoleSession } from "../../core/console/session_store.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { type ConsoleEnv, SESSION_COOKIE } from "./console_env.ts";
import { checkCsrfToken, checkOrigin } from "./csrf.ts";
import { readForm } from "./form_body.ts";

async function holderKeyUsable(gateway: Gateway, keyId: string): Promise<boolean> {
  try {
    const key = await gateway.keys.get(keyId);
    return key.enabled && (!key.expires_at || Date.parse(key.expires_at) > Date.now());
  } catch (error) {
    if (error instanceof GatewayError && error.status === 404) return false;
    throw error;
  }
}

async function memberUsable(gateway: Gateway, memberId: string): Promise<boolean> {
  const member = await gateway.members.store.find(memberId);
  return member !== null && !member.disabled;
}

/**
 * The live session of the request's cookie; a holder session whose key went, or a member session
 * whose member went or was disabled, is ended.
 */
async function sessionOf(
  gateway: Gateway,
  cookie: string | undefined,
): Promise<ConsoleSession | null> {
  if (!cookie) return null;
  const session = await gateway.consoleSessions.get(cookie);
  if (!session) return null;
  if (session.role.kind === "holder" && !(await holderKeyUsable(gateway, session.role.keyId))) {
    await gateway.consoleSessions.delete(session.id);
    return null;
  }
  if (session.role.kind === "member" && !(await memberUsable(gateway, session.role.memberId))) {
    await gateway.consoleSessions.delete(session.id);
    return null;
  }
  return session;
}

/**
 * Loads the session (when there is one) and guards every POST: its origin always, and its CSRF
 * token when signed in (the sign-in form itself has no session yet).
 */
export function loadSession(gateway: Gateway): MiddlewareHandler<ConsoleEnv> {
  return async function consoleSession(c, next) {
    const isPost = c.req.method === "POST";
    if (isPost) checkOrigin(gateway, c.req.raw);
    const session = await sessionOf(gateway, getCookie(c, SESSION_COOKIE));
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
