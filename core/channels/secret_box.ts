/** Encrypts upstream secrets (channel keys) before they are written to KV, with AES-GCM. */

import { isPostgresKv, isRemoteKv } from "../settings.ts";

const PREFIX = "v1:";

/** Seals and opens short secrets with one AES-256-GCM key. */
export class SecretBox {
  #key: CryptoKey;

  private constructor(key: CryptoKey) {
    this.#key = key;
  }

  /** Imports a raw 32-byte key. */
  static async fromRaw(raw: Uint8Array): Promise<SecretBox> {
    if (raw.length !== 32) throw new Error(`The secret key must be 32 bytes, got ${raw.length}`);
    const key = await crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, [
      "encrypt",
      "decrypt",
    ]);
    return new SecretBox(key);
  }

  /** Encrypts `plain` into `v1:<base64 iv+ciphertext>`. */
  async seal(plain: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const cipher = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv },
      this.#key,
      new TextEncoder().encode(plain),
    );
    const joined = new Uint8Array(12 + cipher.byteLength);
    joined.set(iv);
    joined.set(new Uint8Array(cipher), 12);
    return PREFIX + joined.toBase64();
  }

  /** Decrypts what `seal` produced; throws if the key is wrong or the text was altered. */
  async open(sealed: string): Promise<string> {
    if (!sealed.startsWith(PREFIX)) throw new Error("Cannot open secret: unknown format");
    const joined = Uint8Array.fromBase64(sealed.slice(PREFIX.length));
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: joined.subarray(0, 12) },
      this.#key,
      joined.subarray(12),
    );
    return new TextDecoder().decode(plain);
  }
}

/**
 * Loads the secret key: GATEWAY_SECRET_KEY (base64) if set; else a key file beside a local KV
 * file, created on first boot with mode 0600; else, for `:memory:`, a fresh random key.
 * A remote KV is shared by several instances, so it requires GATEWAY_SECRET_KEY.
 */
export async function loadSecretBox(kvLocation: string, secretKey?: string): Promise<SecretBox> {
  if (secretKey) {
    return SecretBox.fromRaw(Uint8Array.fromBase64(secretKey));
  }
  if (kvLocation === ":memory:") {
    return SecretBox.fromRaw(crypto.getRandomValues(new Uint8Array(32)));
  }
  if (isRemoteKv(kvLocation) || isPostgresKv(kvLocation)) {
    throw new Error(
      "GATEWAY_SECRET_KEY is required with a remote KV or PostgreSQL: set it to the same base64 " +
        "32-byte key on every instance",
    );
  }
  const path = `${kvLocation}.secret`;
  try {
    return await SecretBox.fromRaw(await Deno.readFile(path));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    const raw = crypto.getRandomValues(new Uint8Array(32));
    // Written whole under another name, then linked: an instance booting at the same time
    // either links first (and the other reads its key) or reads a complete file, never half.
    const staging = `${path}.${crypto.randomUUID()}`;
    await Deno.writeFile(staging, raw, { mode: 0o600, createNew: true });
    try {
      await Deno.link(staging, path);
      return SecretBox.fromRaw(raw);
    } catch (linkError) {
      if (!(linkError instanceof Deno.errors.AlreadyExists)) throw linkError;
      return await SecretBox.fromRaw(await Deno.readFile(path));
    } finally {
      await Deno.remove(staging).catch(() => {});
    }
  }
}
