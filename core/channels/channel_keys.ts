/**
 * A channel's upstream keys as stored: sealed, each with its hint (key_hint.ts), in one order.
 * `changeChannelKeys` applies a PATCH's key operations: replace all (`keys`), or remove single
 * keys by fingerprint and add single keys (`remove_keys`, then `add_keys`).
 */

import { GatewayError } from "../errors.ts";
import { describeKeyHint, type KeyHint, keyHint } from "./key_hint.ts";

export interface SealedKeys {
  sealed: string[];
  hints: KeyHint[];
}

/** What a PATCH asks of a channel's keys. */
export interface KeyOperations {
  keys?: string[];
  add_keys?: string[];
  remove_keys?: string[];
}

/** Seals and hints `keys`. */
export async function sealKeys(
  keys: readonly string[],
  seal: (key: string) => Promise<string>,
): Promise<SealedKeys> {
  return {
    sealed: await Promise.all(keys.map(seal)),
    hints: await Promise.all(keys.map(keyHint)),
  };
}

/**
 * `current` changed by `operations`, or `current` itself when none was sent. Refuses (400)
 * `keys` beside `add_keys`/`remove_keys`, a fingerprint the channel does not have, and a change
 * that leaves no key. A key added twice is kept once.
 */
export async function changeChannelKeys(
  current: SealedKeys,
  operations: KeyOperations & { channelId: string; seal: (key: string) => Promise<string> },
): Promise<SealedKeys> {
  const { keys, add_keys: add, remove_keys: remove, channelId, seal } = operations;
  if (keys && (add || remove)) {
    throw new GatewayError(
      "invalid_request",
      400,
      "Send either 'keys' (replaces every upstream key) or 'add_keys'/'remove_keys' (change " +
        "single keys), not both",
      { param: "keys" },
    );
  }
  if (keys) return await sealKeys(keys, seal);
  if (!add && !remove) return current;
  const unknown = (remove ?? []).filter((fingerprint) =>
    !current.hints.some((hint) => hint.fingerprint === fingerprint)
  );
  if (unknown.length) {
    throw new GatewayError(
      "unknown_key_fingerprint",
      400,
      `Channel '${channelId}' has no upstream key with fingerprint ${
        unknown.map((fingerprint) => `'${fingerprint}'`).join(", ")
      }; its keys are ${current.hints.map(describeKeyHint).join(", ")}`,
      { param: "remove_keys" },
    );
  }
  const kept: SealedKeys = { sealed: [], hints: [] };
  current.hints.forEach((hint, index) => {
    if (remove?.includes(hint.fingerprint)) return;
    kept.sealed.push(current.sealed[index]);
    kept.hints.push(hint);
  });
  for (const key of new Set(add ?? [])) {
    const hint = await keyHint(key);
    const known = kept.hints.some((other) =>
      other.fingerprint === hint.fingerprint && other.last4 === hint.last4
    );
    if (known) continue;
    kept.sealed.push(await seal(key));
    kept.hints.push(hint);
  }
  if (kept.sealed.length === 0) {
    throw new GatewayError(
      "last_upstream_key",
      400,
      `Cannot remove every upstream key of channel '${channelId}': a channel needs at least one. ` +
        `Add its replacement in the same PATCH ("add_keys"), or disable the channel with ` +
        `{"enabled": false}`,
      { param: "remove_keys" },
    );
  }
  return kept;
}
