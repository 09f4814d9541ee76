/** Identifiers, secrets and hashes. Ids sort by creation time so KV listings page in order. */

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random bytes drawn from the platform CSPRNG in blocks: one call serves many ids. */
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Returns `length` characters drawn uniformly from base62 with the platform CSPRNG. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

let lastTime = 0;
let sequence = 0;

/** A time-ordered id: 9 base36 chars of milliseconds, 4 of sequence, then randomness. */
export function timeOrderedId(prefix: string): string {
  const now = Date.now();
  if (now === lastTime) sequence++;
  else {
    lastTime = now;
    sequence = 0;
  }
  return `${prefix}_${now.toString(36).padStart(9, "0")}${sequence.toString(36).padStart(4, "0")}${
    randomBase62(8)
  }`;
}

/** A new client API key secret. 43 base62 chars ≈ 256 bits, so an unsalted hash is safe. */
export function newApiKeySecret(): string {
  return `sk-gw-${randomBase62(43)}`;
}

/** The prefix of a member's personal access token (the account API), never an API key's. */
export const ACCESS_TOKEN_PREFIX = "gwpat-";

/** A new personal access token: the prefix and 43 base62 chars (≈ 256 bits, as an API key). */
export function newAccessTokenSecret(): string {
  return `${ACCESS_TOKEN_PREFIX}${randomBase62(43)}`;
}

/** Hex SHA-256 of a string. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
