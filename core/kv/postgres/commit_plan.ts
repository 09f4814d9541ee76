/**
 * An atomic commit, checked against Deno KV's limits and encoded before any SQL runs (so a commit
 * KV would refuse throws the same TypeError here), then applied to what the transaction read:
 * mutations in order, each key's last state written.
 */

import { encodeKey } from "./key_codec.ts";
import { encodeValue, u64Of } from "./value_codec.ts";

/** Deno KV's limits (the embedded KV's; denokv allows 10 checks, the gateway uses at most 10). */
export const LIMITS = {
  checks: 100,
  mutations: 1_000,
  writeKeyBytes: 2_048,
  readKeyBytes: 2_049,
  totalMutationBytes: 800 * 1024,
  totalKeyBytes: 80 * 1024,
};

const U64_MASK = (1n << 64n) - 1n;

export type Mutation =
  | { kind: "set"; key: Deno.KvKey; value: unknown; expireIn?: number }
  | { kind: "delete"; key: Deno.KvKey }
  | { kind: "sum"; key: Deno.KvKey; n: bigint };

interface EncodedKey {
  bytes: Uint8Array;
  /** A map key for the bytes. */
  id: string;
}

export interface CommitPlan {
  checks: (EncodedKey & { versionstamp: string | null })[];
  mutations: (
    & EncodedKey
    & (
      | { kind: "set"; value: Uint8Array; expiresAt: number | null }
      | { kind: "delete" }
      | { kind: "sum"; n: bigint }
    )
  )[];
  /** Keys whose current entries the transaction reads: the checked and the summed. */
  reads: EncodedKey[];
}

/** A key's final state in a commit: a value to write, or null to delete it. */
export interface KeyWrite extends EncodedKey {
  value: Uint8Array | null;
  expiresAt: number | null;
}

export function keyOf(key: Deno.KvKey, maxBytes: number, use: "read" | "write"): EncodedKey {
  if (use === "write" && key.length === 0) throw new TypeError("key cannot be empty");
  const bytes = encodeKey(key);
  if (bytes.length > maxBytes) {
    throw new TypeError(`Key too large for ${use} (max ${maxBytes} bytes)`);
  }
  return { bytes, id: bytes.toHex() };
}

/** The plan of a commit; throws a TypeError where Deno KV would refuse it. */
export function planCommit(
  checks: Deno.AtomicCheck[],
  mutations: Mutation[],
  now: number,
): CommitPlan {
  if (checks.length > LIMITS.checks) {
    throw new TypeError(`Too many checks (max ${LIMITS.checks})`);
  }
  if (mutations.length > LIMITS.mutations) {
    throw new TypeError(`Too many mutations (max ${LIMITS.mutations})`);
  }
  let totalBytes = 0;
  let totalKeyBytes = 0;
  const plannedChecks = checks.map((check) => {
    if (check.versionstamp !== null && !/^[0-9a-f]{20}$/.test(check.versionstamp)) {
      throw new TypeError("invalid versionstamp");
    }
    const key = keyOf(check.key, LIMITS.writeKeyBytes, "write");
    totalBytes += key.bytes.length;
    return { ...key, versionstamp: check.versionstamp };
  });
  const plannedMutations: CommitPlan["mutations"] = mutations.map((mutation) => {
    const key = keyOf(mutation.key, LIMITS.writeKeyBytes, "write");
    totalBytes += key.bytes.length;
    if (mutation.kind === "delete") return { ...key, kind: "delete" };
    totalKeyBytes += key.bytes.length;
    if (mutation.kind === "sum") {
      totalBytes += key.bytes.length + 8;
      return { ...key, kind: "sum", n: BigInt.asUintN(64, mutation.n) };
    }
    const value = encodeValue(mutation.value);
    totalBytes += key.bytes.length + value.length - 1;
    const expiresAt = mutation.expireIn === undefined ? null : now + mutation.expireIn;
    return { ...key, kind: "set", value, expiresAt };
  });
  if (totalBytes > LIMITS.totalMutationBytes) {
    throw new TypeError(`Total mutation size too large (max ${LIMITS.totalMutationBytes} bytes)`);
  }
  if (totalKeyBytes > LIMITS.totalKeyBytes) {
    throw new TypeError(`Total key size too large (max ${LIMITS.totalKeyBytes} bytes)`);
  }
  const reads = new Map<string, EncodedKey>();
  for (const key of [...plannedChecks, ...plannedMutations.filter((m) => m.kind === "sum")]) {
    reads.set(key.id, { bytes: key.bytes, id: key.id });
  }
  return { checks: plannedChecks, mutations: plannedMutations, reads: [...reads.values()] };
}

/** Whether every check holds, given the versionstamps read (absent keys not in the map). */
export function checksHold(plan: CommitPlan, versionstamps: Map<string, string>): boolean {
  return plan.checks.every((check) => (versionstamps.get(check.id) ?? null) === check.versionstamp);
}

/** The plan's mutations applied in order over the values read: each key's final state. */
export function finalWrites(plan: CommitPlan, values: Map<string, Uint8Array>): KeyWrite[] {
  const writes = new Map<string, KeyWrite>();
  for (const mutation of plan.mutations) {
    const { bytes, id } = mutation;
    if (mutation.kind === "set") {
      writes.set(id, { bytes, id, value: mutation.value, expiresAt: mutation.expiresAt });
    } else if (mutation.kind === "delete") {
      writes.set(id, { bytes, id, value: null, expiresAt: null });
    } else {
      const base = writes.has(id) ? writes.get(id)!.value ?? undefined : values.get(id);
      const sum = (u64Of(base) + mutation.n) & U64_MASK;
      writes.set(id, { bytes, id, value: encodeValue(new Deno.KvU64(sum)), expiresAt: null });
    }
  }
  return [...writes.values()];
}
