/**
 * Members' service: invitations, password resets, sign-in (with the second factor), TOTP
 * enrolment and self sign-up, over the member store and single-use tokens. Accounts are reached
 * only through the injected `accounts` functions.
 */

import { GatewayError, invalidRequest } from "../errors.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import { sha256Hex, timeOrderedId } from "../util/ids.ts";
import type { SecretBox } from "../channels/secret_box.ts";
import { hashPassword, verifyDummy, verifyPassword } from "./password_hash.ts";
import { type MemberRecord, MemberStore, type MemberView, memberView } from "./member_store.ts";
import { SingleUseTokens } from "./single_use_tokens.ts";
import { checkName, checkPassword, type MemberRole, normaliseEmail } from "./member_input.ts";
import {
  CHALLENGE_TTL_MS,
  type Invitation,
  INVITATION_TTL_MS,
  type InvitationAnswer,
  invitationMail,
  RESET_TTL_MS,
  resetMail,
} from "./invitations.ts";
import type { Mailer, MailMessage } from "./mailer.ts";
import { SignInThrottle } from "./sign_in_throttle.ts";
import { AuthThrottle } from "../keys/auth_throttle.ts";
import { newTotpSecret, totpStep, totpUri } from "./totp.ts";
import { hashRecoveryCode, looksLikeRecoveryCode, newRecoveryCodes } from "./recovery_codes.ts";
import { SignupCodes } from "./signup_codes.ts";
import { AccessTokens } from "./access_tokens.ts";

/** What members need of accounts; the account store provides it. */
export interface AccountFunctions {
  /** Whether account `id` exists (an invitation to another id is refused with 404). */
  exists(id: string): Promise<boolean>;
  /** A display name for mails (falls back to the id). */
  nameOf?(id: string): Promise<string | null>;
  /** Creates the account of a self sign-up: in the sign-up group, with zero balance. */
  create(name: string): Promise<{ id: string }>;
}

export interface MembersOptions {
  mailer: Mailer;
  accounts: AccountFunctions;
  /** Self sign-up allowed (GATEWAY_SIGNUP=1). */
  signup: boolean;
  /** The name authenticator apps show. */
  issuer?: string;
  throttle?: SignInThrottle;
  /** Keeps background work (a token's last-use write) alive until shutdown. */
  track?: (work: Promise<unknown>) => void;
}

/** How a sign-in's first step ended. */
export type SignInStep =
  | { kind: "signed_in"; member: MemberRecord }
  /** The member has a second factor: the challenge secret goes to the TOTP step. */
  | { kind: "second_factor"; challenge: string };

const badSignIn = () =>
  new GatewayError("invalid_sign_in", 401, "The email or password is not right");
const badCode = () =>
  new GatewayError("invalid_second_factor", 401, "The code is not right or was used already");
export const invalidLink = () =>
  new GatewayError(
    "invalid_link",
    404,
    "This link is not valid: it was used already, has expired, or was mistyped",
  );

export class Members {
  readonly store: MemberStore;
  readonly tokens: SingleUseTokens;
  readonly throttle: SignInThrottle;
  readonly signupCodes: SignupCodes;
  /** Personal access tokens for the account API. */
  readonly accessTokens: AccessTokens;
  readonly mailer: Mailer;
  readonly accounts: AccountFunctions;
  readonly signup: boolean;
  #kv: KvBackend;
  #box: SecretBox;
  #issuer: string;
  #resetRequests = new AuthThrottle({
    threshold: 3,
    windowMs: 15 * 60_000,
    baseBlockMs: 15 * 60_000,
  });

  constructor(kv: KvBackend, box: SecretBox, options: MembersOptions) {
    this.#kv = kv;
    this.#box = box;
    this.store = new MemberStore(kv);
    this.tokens = new SingleUseTokens(kv);
    this.signupCodes = new SignupCodes(kv);
    this.accessTokens = new AccessTokens(kv, { track: options.track });
    this.throttle = options.throttle ?? new SignInThrottle();
    this.mailer = options.mailer;
    this.accounts = options.accounts;
    this.signup = options.signup;
    this.#issuer = options.issuer ?? "gateway";
  }

  // Invitations

  /** Invites `email` into `accountId` as `role`; mails the link, or returns it when no SMTP. */
  async invite(
    input: { accountId: string; email: unknown; role: MemberRole; invitedBy: string },
    baseUrl: string,
  ): Promise<InvitationAnswer> {
    const email = normaliseEmail(input.email);
    if (!(await this.accounts.exists(input.accountId))) {
      throw new GatewayError(
        "account_not_found",
        404,
        `No account has the id '${input.accountId}'`,
      );
    }
    const now = Date.now();
    const invitation: Invitation = {
      id: timeOrderedId("inv"),
      account_id: input.accountId,
      email,
      role: input.role,
      invited_by: input.invitedBy,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + INVITATION_TTL_MS).toISOString(),
    };
    const { secret } = await this.tokens.issue("invitation", invitation, INVITATION_TTL_MS, now);
    const link = `${baseUrl}/console/invitation?token=${secret}`;
    const accountName = (await this.accounts.nameOf?.(input.accountId)) ?? input.accountId;
    const sent = await this.#trySend({
      to: email,
      ...invitationMail({ link, accountName, expiresAt: invitation.expires_at }),
    });
    return {
      id: invitation.id,
      email,
      role: invitation.role,
      account_id: invitation.account_id,
      expires_at: invitation.expires_at,
      sent,
      ...(sent ? {} : { link }),
    };
  }

  /** The live invitation of `token` (to show its page), or null. */
  peekInvitation(token: string): Promise<Invitation | null> {
    return this.tokens.peek<Invitation>("invitation", token);
  }

  /**
   * Accepts an invitation for a new email: creates the member with `name` and `password` and adds
   * the membership. Inputs are checked before the token is used up.
   */
  async acceptAsNewMember(
    token: string,
    input: { name: unknown; password: unknown },
  ): Promise<MemberRecord> {
    const name = checkName(input.name);
    const password = checkPassword(input.password);
    const peeked = await this.peekInvitation(token);
    if (!peeked) throw invalidLink();
    if (await this.store.byEmail(peeked.email)) {
      throw new GatewayError(
        "email_taken",
        409,
        "This email has a member already: sign in, then open the link again to join",
      );
    }
    const passwordHash = await hashPassword(password);
    const invitation = await this.tokens.consume<Invitation>("invitation", token);
    if (!invitation) throw invalidLink();
    const member = await this.store.create({ email: invitation.email, name, passwordHash });
    await this.store.addMembership(member.id, invitation.account_id, invitation.role);
    return member;
  }

  /** Accepts an invitation as the signed-in member whose email it was sent to. */
  async acceptAsMember(token: string, memberId: string): Promise<Invitation> {
    const member = await this.store.get(memberId);
    const peeked = await this.peekInvitation(token);
    if (!peeked) throw invalidLink();
    if (peeked.email !== member.email) {
      throw new GatewayError(
        "invitation_for_other_email",
        403,
        `This invitation was sent to another email than ${member.email}`,
      );
    }
    const invitation = await this.tokens.consume<Invitation>("invitation", token);
    if (!invitation) throw invalidLink();
    await this.store.addMembership(memberId, invitation.account_id, invitation.role);
    return invitation;
  }

  /** Sends a mail; a server that refuses it is logged (no link, no address) and answers false. */
  async #trySend(message: MailMessage): Promise<boolean> {
    try {
      return await this.mailer.send(message);
    } catch (error) {
      console.error(JSON.stringify({
        msg: "mail not sent",
        subject: message.subject,
        error: error instanceof Error ? error.message.slice(0, 200) : String(error).slice(0, 200),
      }));
      return false;
    }
  }

  // Password reset

  /**
   * Mails a reset link when `email` belongs to a member (same answer otherwise). Returns the link
   * only to the operator's call (`returnLink`), when no mail could be sent.
   */
  async requestReset(
    rawEmail: unknown,
    baseUrl: string,
    { returnLink = false }: { returnLink?: boolean } = {},
  ): Promise<{ sent: boolean; link?: string; expires_at?: string }> {
    const email = normaliseEmail(rawEmail);
    const member = await this.store.byEmail(email);
    if (!member || member.disabled) return { sent: this.mailer.configured };
    if (!returnLink) {
      // Asked from the public page: at most 3 mails per email in 15 minutes, so the page cannot
      // be used to flood someone's inbox. The answer does not change.
      if (this.#resetRequests.retryAfter(email) > 0) return { sent: this.mailer.configured };
      this.#resetRequests.failed(email, badSignIn());
    }
    const { secret, expiresAt } = await this.tokens.issue(
      "reset",
      { member_id: member.id },
      RESET_TTL_MS,
    );
    const link = `${baseUrl}/console/reset?token=${secret}`;
    const expires_at = new Date(expiresAt).toISOString();
    const sent = await this.#trySend({ to: email, ...resetMail({ link, expiresAt: expires_at }) });
    return returnLink && !sent ? { sent, link, expires_at } : { sent, expires_at };
  }

  async peekReset(token: string): Promise<boolean> {
    return (await this.tokens.peek("reset", token)) !== null;
  }

  /** Sets a new password from a reset link; the link works once. Returns the member's id. */
  async resetPassword(token: string, rawPassword: unknown): Promise<string> {
    const password = checkPassword(rawPassword);
    const passwordHash = await hashPassword(password);
    const payload = await this.tokens.consume<{ member_id: string }>("reset", token);
    if (!payload) throw invalidLink();
    await this.store.update(
      payload.member_id,
      (record) => ({ ...record, password_hash: passwordHash }),
    );
    return payload.member_id;
  }

  async changePassword(memberId: string, current: unknown, next: unknown): Promise<void> {
    const password = checkPassword(next, "new_password");
    const member = await this.store.get(memberId);
    if (typeof current !== "string" || !(await verifyPassword(current, member.password_hash))) {
      throw invalidRequest("The current password is not right", "current_password");
    }
    const passwordHash = await hashPassword(password);
    await this.store.update(memberId, (record) => ({ ...record, password_hash: passwordHash }));
  }

  // Sign-in

  /**
   * The first step: email and password. Unknown email, disabled member and wrong password give
   * the same 401 after the same work (a dummy hash is verified for an unknown email); a blocked
   * email or address is refused with 429 before anything is checked.
   */
  async signIn(
    input: { email: unknown; password: unknown },
    address: string,
  ): Promise<SignInStep> {
    const email = typeof input.email === "string" ? input.email.trim().toLowerCase() : "";
    const password = typeof input.password === "string" ? input.password : "";
    this.throttle.check(email, address);
    const member = email ? await this.store.byEmail(email) : null;
    const ok = member && !member.disabled
      ? await verifyPassword(password, member.password_hash)
      : await verifyDummy(password);
    if (!ok || !member) {
      this.throttle.failed(email, address);
      throw badSignIn();
    }
    if (!member.totp) return { kind: "signed_in", member };
    const { secret } = await this.tokens.issue(
      "challenge",
      { member_id: member.id, email },
      CHALLENGE_TTL_MS,
    );
    return { kind: "second_factor", challenge: secret };
  }

  /** Whether `challenge` is a live second-factor step (to show its form). */
  async challengeLive(challenge: string): Promise<boolean> {
    return (await this.tokens.peek("challenge", challenge)) !== null;
  }

  /**
   * The second step: a TOTP code or a recovery code. A wrong code counts against the throttle and
   * leaves the challenge for another try; a right one uses it up.
   */
  async completeSignIn(challenge: string, code: unknown, address: string): Promise<MemberRecord> {
    const peeked = await this.tokens.peek<{ member_id: string; email: string }>(
      "challenge",
      challenge,
    );
    if (!peeked) throw invalidLink();
    this.throttle.check(peeked.email, address);
    const member = await this.store.get(peeked.member_id);
    if (typeof code !== "string" || !(await this.#useSecondFactor(member, code))) {
      this.throttle.failed(peeked.email, address);
      throw badCode();
    }
    if (!(await this.tokens.consume("challenge", challenge))) throw invalidLink();
    return member;
  }

  /** Checks a TOTP code (not used before) or uses up a recovery code. */
  async #useSecondFactor(member: MemberRecord, code: string): Promise<boolean> {
    if (!member.totp) return false;
    if (looksLikeRecoveryCode(code)) {
      const hash = await hashRecoveryCode(code);
      if (!member.recovery_codes.includes(hash)) return false;
      let used = false;
      await this.store.update(member.id, (record) => {
        if (!record.recovery_codes.includes(hash)) return null;
        used = true;
        return { ...record, recovery_codes: record.recovery_codes.filter((h) => h !== hash) };
      });
      return used;
    }
    const secret = await this.#box.open(member.totp.sealed);
    const step = totpStep(secret, code);
    return step !== null && await this.#claimStep(member.id, step);
  }

  /** Records `step` as used unless it (or a later one) was: a code works once. */
  async #claimStep(memberId: string, step: number): Promise<boolean> {
    const key = kvKeys.totpLastStep(memberId);
    // kv-locked: a conflicting commit fails the check and the loop reads again.
    for (let attempt = 0; attempt < 20; attempt++) {
      const entry = await this.#kv.get<number>(key);
      if (entry.value !== null && entry.value >= step) return false;
      const result = await withKvRetry(() =>
        this.#kv.atomic().check(entry).set(key, step, { expireIn: 5 * 60_000 }).commit()
      );
      if (result.ok) return true;
    }
    return false;
  }

  // Second factor enrolment

  /** Begins enrolment: a new secret, shown once (URI and base32); confirmed by `confirmTotp`. */
  async startTotp(memberId: string): Promise<{ secret: string; uri: string }> {
    const member = await this.store.get(memberId);
    const secret = newTotpSecret();
    const sealed = await this.#box.seal(secret);
    await this.store.update(memberId, (record) => ({
      ...record,
      totp_pending: { sealed, started_at: new Date().toISOString() },
    }));
    return { secret, uri: totpUri(secret, member.email, this.#issuer) };
  }

  /** The enrolment begun and not confirmed yet (to show its secret again), or null. */
  async pendingTotp(memberId: string): Promise<{ secret: string; uri: string } | null> {
    const member = await this.store.get(memberId);
    if (!member.totp_pending) return null;
    const secret = await this.#box.open(member.totp_pending.sealed);
    return { secret, uri: totpUri(secret, member.email, this.#issuer) };
  }

  /** Confirms enrolment with a code of the new secret; returns the ten recovery codes (once). */
  async confirmTotp(memberId: string, code: unknown): Promise<string[]> {
    const member = await this.store.get(memberId);
    if (!member.totp_pending) {
      throw invalidRequest("Start the second factor's enrolment first", "code");
    }
    const secret = await this.#box.open(member.totp_pending.sealed);
    const step = typeof code === "string" ? totpStep(secret, code) : null;
    if (step === null || !(await this.#claimStep(memberId, step))) {
      throw invalidRequest("The code is not right; check the authenticator's clock", "code");
    }
    const { codes, hashes } = await newRecoveryCodes();
    const pending = member.totp_pending;
    await this.store.update(memberId, (record) => ({
      ...record,
      totp: { sealed: pending.sealed, enrolled_at: new Date().toISOString() },
      totp_pending: null,
      recovery_codes: hashes,
    }));
    return codes;
  }

  /** Turns the second factor off; needs the password. */
  async disableTotp(memberId: string, password: unknown): Promise<void> {
    const member = await this.store.get(memberId);
    if (typeof password !== "string" || !(await verifyPassword(password, member.password_hash))) {
      throw invalidRequest("The password is not right", "password");
    }
    await this.store.update(memberId, (record) => ({
      ...record,
      totp: null,
      totp_pending: null,
      recovery_codes: [],
    }));
  }

  // Self sign-up

  /**
   * Self sign-up with an invite code: a new member who owns a new account. Refused with 404 when
   * sign-up is off. The code's use is taken before the account is made.
   */
  async signUp(
    input: { email: unknown; name: unknown; password: unknown; code: unknown },
  ): Promise<{ member: MemberRecord; accountId: string }> {
    if (!this.signup) {
      throw new GatewayError("signup_disabled", 404, "Self sign-up is not enabled here");
    }
    const email = normaliseEmail(input.email);
    const name = checkName(input.name);
    const password = checkPassword(input.password);
    if (await this.store.byEmail(email)) {
      throw new GatewayError("email_taken", 409, "This email has a member already: sign in", {
        param: "email",
      });
    }
    const passwordHash = await hashPassword(password);
    if (typeof input.code !== "string" || !(await this.signupCodes.use(input.code))) {
      throw invalidRequest("The invite code is not valid or has been used up", "code");
    }
    const member = await this.store.create({ email, name, passwordHash });
    const account = await this.accounts.create(name);
    await this.store.addMembership(member.id, account.id, "owner");
    return { member, accountId: account.id };
  }

  // Membership changes (admin API and owners in the console)

  /** Changes a member's role in an account; the last owner cannot be made a member. */
  async changeRole(accountId: string, memberId: string, role: MemberRole) {
    if (role !== "owner") await this.#keepAnOwner(accountId, memberId);
    return await this.store.setRole(memberId, accountId, role);
  }

  /** Removes a member from an account (their keys stay); never the last owner. */
  async removeMember(accountId: string, memberId: string): Promise<void> {
    await this.#keepAnOwner(accountId, memberId);
    await this.store.removeMembership(memberId, accountId);
  }

  async #keepAnOwner(accountId: string, memberId: string): Promise<void> {
    const members = await this.store.membersOf(accountId);
    const owners = members.filter((m) => m.role === "owner");
    if (owners.length === 1 && owners[0].member_id === memberId) {
      throw new GatewayError(
        "last_owner",
        409,
        "This is the account's only owner: make another member owner first",
      );
    }
  }

  /** The members of an account with their names and emails. */
  async membersOfAccount(accountId: string) {
    const memberships = await this.store.membersOf(accountId);
    return await Promise.all(memberships.map(async (membership) => {
      const record = await this.store.find(membership.member_id);
      return {
        ...membership,
        email: record?.email ?? "",
        name: record?.name ?? "",
      };
    }));
  }

  // Views

  async view(memberId: string): Promise<MemberView> {
    return memberView(await this.store.get(memberId));
  }

  /** The members whose email is `email` (0 or 1), or all when none is given, with memberships. */
  async find(email?: string): Promise<Array<MemberView & { memberships: unknown[] }>> {
    const records: MemberRecord[] = [];
    if (email !== undefined) {
      const record = await this.store.byEmail(normaliseEmail(email));
      if (record) records.push(record);
    } else {
      for await (
        const entry of this.#kv.list<MemberRecord>({ prefix: [...kvKeys.members()] }, {
          limit: 1000,
        })
      ) {
        records.push(entry.value);
      }
    }
    return await Promise.all(records.map(async (record) => ({
      ...memberView(record),
      memberships: await this.store.membershipsOf(record.id),
    })));
  }
}

/** The id of a token for an audit trail, never the token itself. */
export const tokenLabel = async (secret: string) => (await sha256Hex(secret)).slice(0, 16);
