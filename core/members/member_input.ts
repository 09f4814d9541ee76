/** The shapes of member input: email, password, role, name. Each refusal is a 400 naming the field. */

import { z } from "zod";
import { invalidRequest } from "../errors.ts";

export const MEMBER_ROLES = ["owner", "member"] as const;
export type MemberRole = typeof MEMBER_ROLES[number];

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

/** An email, trimmed and lower-cased; the store's unique index uses this form. */
export function normaliseEmail(raw: unknown, param = "email"): string {
  const email = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  if (email.length > 254 || !/^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/.test(email)) {
    throw invalidRequest(`'${param}' must be an email address such as ana@example.com`, param);
  }
  return email;
}

export function checkPassword(raw: unknown, param = "password"): string {
  if (typeof raw !== "string" || raw.length < MIN_PASSWORD_LENGTH) {
    throw invalidRequest(
      `'${param}' must be a password of at least ${MIN_PASSWORD_LENGTH} characters`,
      param,
    );
  }
  if (raw.length > MAX_PASSWORD_LENGTH) {
    throw invalidRequest(`'${param}' must be at most ${MAX_PASSWORD_LENGTH} characters`, param);
  }
  return raw;
}

export function checkRole(raw: unknown, param = "role"): MemberRole {
  if (!MEMBER_ROLES.includes(raw as MemberRole)) {
    throw invalidRequest(`'${param}' must be 'owner' or 'member'`, param);
  }
  return raw as MemberRole;
}

export function checkName(raw: unknown, param = "name"): string {
  const name = typeof raw === "string" ? raw.trim() : "";
  // deno-lint-ignore no-control-regex
  if (name.length < 1 || name.length > 100 || /[\x00-\x1f]/.test(name)) {
    throw invalidRequest(`'${param}' must be a name of 1-100 characters`, param);
  }
  return name;
}

/** The admin API's invitation body. */
export const invitationInputSchema = z.object({
  email: z.string().max(254),
  role: z.enum(MEMBER_ROLES),
}).strict();

export const rolePatchSchema = z.object({ role: z.enum(MEMBER_ROLES) }).strict();
