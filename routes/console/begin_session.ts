/**
 * Starts a console session at sign-in: always a fresh session id (the one before sign-in, if any,
 * is ended), set in the cookie. A member's session views their first account.
 */

import { setCookie } from "hono/cookie";
import type { ConsoleRole } from "../../core/console/session_store.ts";
import type { Gateway } from "../../core/gateway.ts";
import { type ConsoleContext, isHttps, SESSION_COOKIE } from "./console_env.ts";

export async function beginSession(
  c: ConsoleContext,
  gateway: Gateway,
  role: ConsoleRole,
): Promise<void> {
  const old = c.get("session");
  if (old) await gateway.consoleSessions.delete(old.id);
  const session = await gateway.consoleSessions.create(role);
  setCookie(c, SESSION_COOKIE, session.id, {
    path: "/console",
    httpOnly: true,
    sameSite: "Strict",
    secure: isHttps(gateway, c.get("url")),
    maxAge: Math.floor(gateway.consoleSessions.ttlMs / 1000),
  });
}

/** The role of member `memberId` signing in: viewing the first account they belong to. */
export async function memberRole(gateway: Gateway, memberId: string): Promise<ConsoleRole> {
  const memberships = await gateway.members.store.membershipsOf(memberId);
  return { kind: "member", memberId, accountId: memberships[0]?.account_id ?? "" };
}
