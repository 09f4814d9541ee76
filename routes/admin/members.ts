/**
 * Admin routes for members: invite an email into an account, find members, change a member's
 * role in an account or remove them (their keys stay), make a reset link, make self sign-up
 * codes. Audited by the admin middleware like every admin change; links and codes never reach the
 * audit record.
 */

import { Hono } from "hono";
import { z } from "zod";
import type { Gateway } from "../../core/gateway.ts";
import { GatewayError } from "../../core/errors.ts";
import { invitationInputSchema, rolePatchSchema } from "../../core/members/member_input.ts";
import { memberNotFound } from "../../core/members/member_store.ts";
import type { AppEnv } from "../middleware.ts";
import {
  createdAnswer,
  deletedAnswer,
  jsonAnswer,
  serveRoute,
  TEXT_QUERY,
} from "../openapi/declare_route.ts";
import { queryValue } from "../params.ts";
import { validate } from "../validation.ts";
import { adminBody, adminRoute } from "./shared.ts";
import type { Context } from "hono";

const ACCOUNT_ID = /^acct_[0-9A-Za-z_-]{1,64}$/;
const MEMBER_ID = /^mem_[0-9A-Za-z]{1,64}$/;

const signupCodeInputSchema = z.object({
  uses: z.number().int().min(1).max(100_000),
  expires_in_days: z.number().int().min(1).max(365).optional(),
}).strict();

function accountIdOf(c: Context<AppEnv>): string {
  const id = c.req.param("id") ?? "";
  if (!ACCOUNT_ID.test(id)) {
    throw new GatewayError(
      "account_not_found",
      404,
      "No account has this id (id must be acct_ followed by letters and digits)",
      { param: "id" },
    );
  }
  return id;
}

function memberIdOf(c: Context<AppEnv>, name: string): string {
  const id = c.req.param(name) ?? "";
  if (!MEMBER_ID.test(id)) {
    const base = memberNotFound(id.slice(0, 80));
    throw new GatewayError(
      base.code,
      404,
      `${base.message} (must be mem_ followed by letters and digits)`,
      {
        param: name,
      },
    );
  }
  return id;
}

const baseUrl = (gateway: Gateway, c: Context<AppEnv>) =>
  (gateway.options.publicUrl ?? c.get("url").origin).replace(/\/+$/, "");

const inviteMember = adminRoute({
  method: "post",
  path: "/admin/accounts/{id}/invitations",
  summary:
    "Invite an email into an account as owner or member; mailed when SMTP is set, else `link` is in this answer only",
  body: { name: "InvitationInput", schema: invitationInputSchema },
  answers: createdAnswer("{id, email, role, account_id, expires_at, sent, link?}"),
});

const findMembers = adminRoute({
  method: "get",
  path: "/admin/members",
  summary: "Members (with their memberships), or the one with `email`",
  query: [{ name: "email", description: "an email (any case)", schema: TEXT_QUERY }],
  answers: { "200": jsonAnswer("{data: member views with memberships}") },
});

const removeMember = adminRoute({
  method: "delete",
  path: "/admin/accounts/{id}/members/{memberId}",
  summary: "Remove a member from an account (the keys they made stay)",
  answers: deletedAnswer,
});

const changeRole = adminRoute({
  method: "patch",
  path: "/admin/accounts/{id}/members/{memberId}",
  summary: "Change a member's role in an account",
  body: { name: "RolePatch", schema: rolePatchSchema },
  answers: { "200": jsonAnswer("the membership") },
});

const resetLink = adminRoute({
  method: "post",
  path: "/admin/members/{id}/reset-link",
  summary:
    "A single-use password reset link (1 hour) for a member; mailed when SMTP is set, else `link` is in this answer only",
  answers: createdAnswer("{sent, expires_at, link?}"),
});

const createSignupCode = adminRoute({
  method: "post",
  path: "/admin/signup-codes",
  summary:
    "A self sign-up invite code good for `uses` sign-ups; `signup_code` is in this answer only",
  body: { name: "SignupCodeInput", schema: signupCodeInputSchema },
  answers: createdAnswer("{id, signup_code, uses, expires_at}"),
});

export function adminMemberRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const members = gateway.members;
  serveRoute(app, inviteMember, async (c) => {
    const accountId = accountIdOf(c);
    const input = validate(invitationInputSchema, await adminBody(c.req.raw));
    const answer = await members.invite(
      { accountId, email: input.email, role: input.role, invitedBy: "admin_token" },
      baseUrl(gateway, c),
    );
    return c.json(answer, 201);
  });
  serveRoute(app, findMembers, async (c) => {
    const email = queryValue(c.get("url"), "email") || undefined;
    return c.json({ data: await members.find(email) });
  });
  serveRoute(app, removeMember, async (c) => {
    const accountId = accountIdOf(c);
    await members.removeMember(accountId, memberIdOf(c, "memberId"));
    return c.body(null, 204);
  });
  serveRoute(app, changeRole, async (c) => {
    const accountId = accountIdOf(c);
    const memberId = memberIdOf(c, "memberId");
    const input = validate(rolePatchSchema, await adminBody(c.req.raw));
    return c.json(await members.changeRole(accountId, memberId, input.role));
  });
  serveRoute(app, resetLink, async (c) => {
    const member = await members.store.get(memberIdOf(c, "id"));
    const answer = await members.requestReset(member.email, baseUrl(gateway, c), {
      returnLink: true,
    });
    return c.json(answer, 201);
  });
  serveRoute(app, createSignupCode, async (c) => {
    const input = validate(signupCodeInputSchema, await adminBody(c.req.raw));
    const made = await members.signupCodes.create({
      uses: input.uses,
      ttlMs: (input.expires_in_days ?? 30) * 86_400_000,
    });
    return c.json({
      id: made.id,
      signup_code: made.code,
      uses: made.uses,
      expires_at: made.expires_at,
    }, 201);
  });
  return app;
}
