/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): every delivery carries
 * `webhook-id` (the same for each attempt of one delivery, so receivers dedupe on it),
 * `webhook-timestamp` (unix seconds, fresh per attempt) and `webhook-signature`, one
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret that signs, space-separated (two
 * while a rotated-out secret is still in its grace). Pure apart from the clock and randomness.
 */

import { bytesOfBase64 } from "../util/base64.ts";
import { randomBase62 } from "../util/ids.ts";

const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + (crypto.getRandomValues(new Uint8Array(SECRET_BYTES))).toBase64();
}

/** Why `secret` is not a usable `whsec_` secret (24 to 64 bytes of base64), or null. */
export function webhookSecretProblem(secret: string): string | null {
  if (!secret.startsWith(SECRET_PREFIX)) return "must start with 'whsec_'";
  const key = bytesOfBase64(secret.slice(SECRET_PREFIX.length));
  if (!key) return "must be 'whsec_' followed by base64";
  if (key.length < 24 || key.length > 64) {
    return `must hold 24 to 64 bytes after 'whsec_', it holds ${key.length}`;
  }
  return null;
}

/** A new message id, the `webhook-id` of one delivery. */
export function newMessageId(): string {
  return `msg_${randomBase62(27)}`;
}

/** What one attempt signs. */
export interface SignedMessage {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  body: string;
}

/** `v1,<base64 HMAC-SHA256>` of `message` with `secret` (the bytes after `whsec_`). */
export async function signatureOf(secret: string, message: SignedMessage): Promise<string> {
  const raw = bytesOfBase64(secret.slice(SECRET_PREFIX.length));
  if (!secret.startsWith(SECRET_PREFIX) || !raw) throw new Error("Not a whsec_ secret");
  const key = await crypto.subtle.importKey(
    "raw",
    raw,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signed = new TextEncoder().encode(`${message.id}.${message.timestamp}.${message.body}`);
  const mac = await crypto.subtle.sign("HMAC", key, signed);
  return `v1,${(new Uint8Array(mac)).toBase64()}`;
}

/** The three Standard Webhooks headers of `message`, signed by every secret of `secrets`. */
export async function webhookHeaders(
  secrets: readonly string[],
  message: SignedMessage,
): Promise<Record<string, string>> {
  const signatures = await Promise.all(secrets.map((secret) => signatureOf(secret, message)));
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(message.timestamp),
    "webhook-signature": signatures.join(" "),
  };
}
