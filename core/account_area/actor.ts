/** Who acts in an account's token management area, and what their role lets them do. */

export const ACCOUNT_ROLES = ["owner", "member"] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

/**
 * A member (signed in to the console, or by a personal access token) acting in one account.
 * The account comes from the session or the token, never from a request's fields or path.
 */
export interface AccountActor {
  accountId: string;
  /** The member; null for a caller that is not a person (none today). */
  memberId: string | null;
  role: AccountRole;
}

/**
 * Whether `actor` manages the key: an owner every key of the account, a member the keys they
 * made.
 */
export function managesKey(
  actor: AccountActor,
  key: { account_id?: string; created_by?: string | null },
): boolean {
  if (key.account_id !== actor.accountId) return false;
  return actor.role === "owner" || (actor.memberId !== null && key.created_by === actor.memberId);
}
