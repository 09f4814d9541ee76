/** Invitations: who is asked to join which account, as what; the payload of an invitation token. */

import type { MemberRole } from "./member_input.ts";

export const INVITATION_TTL_MS = 7 * 86_400_000;
export const RESET_TTL_MS = 3_600_000;
/** How long the second-factor step of a sign-in may take. */
export const CHALLENGE_TTL_MS = 10 * 60_000;

export interface Invitation {
  id: string;
  account_id: string;
  email: string;
  role: MemberRole;
  /** `admin_token`, or `member:<id>` for an owner's invitation. */
  invited_by: string;
  created_at: string;
  expires_at: string;
}

/** What the inviter is answered: `link` only when no mail was sent (show it once). */
export interface InvitationAnswer {
  id: string;
  email: string;
  role: MemberRole;
  account_id: string;
  expires_at: string;
  sent: boolean;
  link?: string;
}

export function invitationMail(
  { link, accountName, expiresAt }: { link: string; accountName: string; expiresAt: string },
) {
  return {
    subject: `You are invited to ${accountName}`,
    text: `You have been invited to join ${accountName} on the gateway.\n\n` +
      `Accept the invitation and set your password here:\n${link}\n\n` +
      `The link works once and expires at ${expiresAt}.\n`,
  };
}

export function resetMail({ link, expiresAt }: { link: string; expiresAt: string }) {
  return {
    subject: "Reset your gateway password",
    text: `Someone asked to reset the password of this email on the gateway.\n\n` +
      `Set a new password here:\n${link}\n\n` +
      `The link works once and expires at ${expiresAt}. If it was not you, ignore this mail.\n`,
  };
}
