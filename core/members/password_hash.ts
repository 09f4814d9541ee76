/**
 * Member passwords, hashed with argon2id (hash-wasm, WebAssembly, so it also runs on Deno Deploy).
 * Parameters: 19 MiB of memory, 2 passes, 1 lane, a 16-byte random salt and a 32-byte hash — the
 * OWASP minimum for argon2id. They are written into the stored PHC string
 * (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`), so raising them later leaves old hashes
 * readable. Verification recomputes the hash with the stored parameters and compares in constant
 * time.
 */

import { argon2id } from "hash-wasm";

export const ARGON2_PARAMETERS = { memorySize: 19_456, iterations: 2, parallelism: 1 } as const;
const HASH_LENGTH = 32;

const b64 = (bytes: Uint8Array) => bytes.toBase64({ omitPadding: true });
const fromB64 = (text: string) => Uint8Array.fromBase64(text);

async function derive(
  password: string,
  salt: Uint8Array,
  params: { memorySize: number; iterations: number; parallelism: number },
): Promise<Uint8Array> {
  return await argon2id({
    password,
    salt,
    hashLength: HASH_LENGTH,
    outputType: "binary",
    ...params,
  });
}

/** The PHC string of `password` with a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, ARGON2_PARAMETERS);
  const { memorySize: m, iterations: t, parallelism: p } = ARGON2_PARAMETERS;
  return `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(salt)}$${b64(hash)}`;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** Whether `password` matches the PHC string `stored`; false for a string it cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = stored.match(/^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([^$]+)\$([^$]+)$/);
  if (!match) return false;
  const [, m, t, p, salt, hash] = match;
  const expected = fromB64(hash);
  // The library refuses an empty password: do the same work on a stand-in, and say no.
  const actual = await derive(password || "\u0000empty", fromB64(salt), {
    memorySize: Number(m),
    iterations: Number(t),
    parallelism: Number(p),
  });
  return password !== "" && equalBytes(actual, expected);
}

let dummy: Promise<string> | undefined;

/**
 * Does the work of one verification against a hash nobody's password matches, so a sign-in with
 * an unknown email costs what a wrong password costs.
 */
export async function verifyDummy(password: string): Promise<false> {
  dummy ??= hashPassword(crypto.randomUUID());
  await verifyPassword(password, await dummy);
  return false;
}
