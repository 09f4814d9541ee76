/**
 * Recovery codes: ten one-time codes shown once when the second factor is enrolled, each good for
 * one sign-in without the authenticator. Only their SHA-256 is stored; a code is matched
 * case-insensitively and without its dash.
 */

import { sha256Hex } from "../util/ids.ts";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** Bytes at or above this would favour the first letters (256 is not a multiple of 31). */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

function randomCode(): string {
  let chars = "";
  while (chars.length < 10) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      if (byte < UNBIASED_LIMIT && chars.length < 10) chars += ALPHABET[byte % ALPHABET.length];
    }
  }
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
