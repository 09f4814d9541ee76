/**
 * How an upstream key is shown, since the key itself never is: a fingerprint (the first 8 hex
 * characters of its SHA-256, which names it in `remove_keys`) and its last 4 characters. A
 * service account's JSON key (a vertex channel's) is shown by its account (`client_email`) and
 * the last 4 characters of its `private_key_id` instead: the end of its text is only `}`.
 */

import { sha256Hex } from "../util/ids.ts";

export interface KeyHint {
  fingerprint: string;
  last4: string;
  /** A service account key's `client_email`. */
  account?: string;
}

/** A service account key's account and key id, when `key` is one. */
function serviceAccountOf(key: string): { account: string; keyId: string } | undefined {
  if (!key.trimStart().startsWith("{")) return undefined;
  try {
    const { client_email, private_key_id } = JSON.parse(key);
    if (typeof client_email !== "string") return undefined;
    return {
      account: client_email.slice(0, 200),
      keyId: typeof private_key_id === "string" ? private_key_id : "",
    };
  } catch {
    return undefined;
  }
}

/** The shape of a fingerprint: 8 lowercase hex characters. */
export const FINGERPRINT_PATTERN = /^[0-9a-f]{8}$/;

/** The hint of one upstream key. */
export async function keyHint(key: string): Promise<KeyHint> {
  const fingerprint = (await sha256Hex(key)).slice(0, 8);
  const serviceAccount = serviceAccountOf(key);
  if (serviceAccount) {
    return { fingerprint, last4: serviceAccount.keyId.slice(-4), account: serviceAccount.account };
  }
  return { fingerprint, last4: key.slice(-4) };
}

/** `hint` as one line of text, e.g. `3f2a9c1e (…wxyz)`. */
export function describeKeyHint(hint: KeyHint): string {
  return hint.account
    ? `${hint.fingerprint} (${hint.account}, key …${hint.last4})`
    : `${hint.fingerprint} (…${hint.last4})`;
}
