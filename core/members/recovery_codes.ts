/**
 * Recovery codes: ten one-time codes shown once when the second factor is enrolled, each good for
 * one sign-in without the authenticator. Only their SHA-256 is stored; a code is matched
 * case-insensitively and without its dash.
 */

import { sha256Hex } from "../util/ids.ts";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

function randomCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  const chars = Array.from(bytes, (byte) => ALPHABET[byte % ALPHABET.length]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A code as typed, in the form that is hashed. */
export function normaliseRecoveryCode(code: string): string {
  return code.trim().toLowerCase().replace(/[\s-]/g, "");
}

export const hashRecoveryCode = (code: string) =>
  sha256Hex(`recovery:${normaliseRecoveryCode(code)}`);

/** Ten new codes and their hashes. */
export async function newRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, randomCode);
  return { codes, hashes: await Promise.all(codes.map(hashRecoveryCode)) };
}

/** Whether `code` looks like a recovery code (not a 6-digit TOTP code). */
export function looksLikeRecoveryCode(code: string): boolean {
  return /^[a-z0-9]{10}$/.test(normaliseRecoveryCode(code));
}
