/**
 * TOTP second factor (RFC 6238 through `otpauth`): SHA-1, 6 digits, 30-second steps, and a code of
 * the step before or after accepted too (clock drift). Which step a code matched is returned, so
 * the caller can refuse a code whose step was used already (replay within its window).
 */

import { Secret, TOTP } from "otpauth";

export const TOTP_PERIOD_S = 30;
const TOTP_SETTINGS = { algorithm: "SHA1", digits: 6, period: TOTP_PERIOD_S } as const;

/** A fresh 160-bit secret, base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secretBase32: string, label = "member", issuer = "gateway"): TOTP {
  return new TOTP({ ...TOTP_SETTINGS, issuer, label, secret: Secret.fromBase32(secretBase32) });
}

/** The otpauth:// URI an authenticator app reads (as a QR code or pasted). */
export function totpUri(secretBase32: string, email: string, issuer: string): string {
  return totpOf(secretBase32, email, issuer).toString();
}

/** The time step `code` is valid for at `now` (±1 step), or null. */
export function totpStep(secretBase32: string, code: string, now = Date.now()): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpOf(secretBase32).validate({ token, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

/** The code of `secretBase32` at `now` (tests and the enrolment page's own check). */
export function totpCode(secretBase32: string, now = Date.now()): string {
  return totpOf(secretBase32).generate({ timestamp: now });
}
