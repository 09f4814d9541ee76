/**
 * Keeps members to their own pages: a member's session reaches only the member pages listed
 * here, and every operator page (keys, channels, models, requests, tasks, webhooks, audit, the
 * overview) answers 403. A list of what is allowed, so a page added later is refused to members
 * until it is written for them.
 */

import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../../core/errors.ts";
import type { ConsoleEnv } from "./console_env.ts";
import type { Gateway } from "../../core/gateway.ts";

const MEMBER_PAGES = [
  /^\/console\/account$/,
  // The token management area: keys, usage (and its export), one request, the wallet.
  /^\/console\/account\/keys(\/new|\/[^/]+(\/(created|edit|enabled|rotate|delete))?)?$/,
  /^\/console\/account\/usage(\/export)?$/,
  /^\/console\/account\/requests\/[^/]+$/,
  /^\/console\/account\/wallet(\/redeem)?$/,
  /^\/console\/account\/models$/,
  /^\/console\/members(\/[^/]+\/(role|remove))?$/,
  /^\/console\/settings(\/[a-z-]+(\/[a-z-]+)?)?$/,
  /^\/console\/sign-out$/,
  /^\/console\/theme$/,
];

/** Whether a member's session may reach `path` (the isolation tests cover each such route). */
export function isMemberPage(path: string): boolean {
  return MEMBER_PAGES.some((page) => page.test(path));
}

export function memberPagesOnly(): MiddlewareHandler<ConsoleEnv> {
  return async function consoleMemberPagesOnly(c, next) {
    if (c.get("session")?.role.kind !== "member") return await next();
    const path = c.get("url").pathname;
    if (path === "/console" && c.req.method === "GET") return c.redirect("/console/account", 303);
    if (isMemberPage(path)) return await next();
    throw new GatewayError(
      "operator_only",
      403,
      "This page is for the gateway's operator; members see their account's dashboard, keys, usage, wallet, members and settings",
    );
  };
}

/** Lets only a member through (the member pages). */
export function requireMember(): MiddlewareHandler<ConsoleEnv> {
  return async function consoleRequireMember(c, next) {
    if (c.get("session")?.role.kind === "member") return await next();
    throw new GatewayError("members_only", 403, "This page is for members who sign in by email");
  };
}

/** Reads a member's role in the account they view, so the nav offers only what it allows. */
export function readAccountRole(gateway: Gateway): MiddlewareHandler<ConsoleEnv> {
  return async function consoleReadAccountRole(c, next) {
    const role = c.get("session")?.role;
    if (role?.kind === "member") {
      const accountRole = await gateway.members.store.roleIn(role.memberId, role.accountId);
      if (accountRole) c.set("accountRole", accountRole);
    }
    await next();
  };
}
