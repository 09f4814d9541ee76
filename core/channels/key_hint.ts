/**
 * How an upstream key is shown, since the key itself never is: a fingerprint (the first 8 hex
 * characters of its SHA-256, which names it in `remove_keys`) and its last 4 characters.
 */

import { sha256Hex } from "../util/ids.ts";

export interface KeyHint {
  fingerprint: string;
  last4: string;
}

/** The shape of a fingerprint: 8 lowercase hex characters. */
export const FINGERPRINT_PATTERN = /^[0-9a-f]{8}$/;

/** The hint of one upstream key. */
export async function keyHint(key: string): Promise<KeyHint> {
  return { fingerprint: (await sha256Hex(key)).slice(0, 8), last4: key.slice(-4) };
}

/** `hint` as one line of text, e.g. `3f2a9c1e (…wxyz)`. */
export function describeKeyHint(hint: KeyHint): string {
  return `${hint.fingerprint} (…${hint.last4})`;
}
