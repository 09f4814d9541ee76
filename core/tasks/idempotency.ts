/**
 * Idempotency-Key for task submissions. The task id is derived from the owner and the key, so
 * repeats of one submission meet at one task id (the create commit lets only one of them write
 * it); the task keeps a SHA-256 digest of the whole normalized request, so a repeat is a replay
 * only when it is the same request — a different one under the same key is 409
 * `idempotency_key_reused`, never a silent answer for the other request.
 */

import { GatewayError } from "../errors.ts";
import { sha256Hex } from "../util/ids.ts";
import type { TaskRecord } from "./task_record.ts";

/** The id of the task `owner` makes with Idempotency-Key `key` for a `kind` task. */
export async function idempotentTaskId(
  input: { owner: string; kind: TaskRecord["kind"]; key: string },
): Promise<string> {
  // Video ids keep their first form (owner and key), so tasks made before stay found.
  const seed = input.kind === "video"
    ? `${input.owner}\0${input.key}`
    : `${input.owner}\0${input.kind}\0${input.key}`;
  return `task_${(await sha256Hex(seed)).slice(0, 32)}`;
}

/** JSON with object keys sorted at every level, so equal requests give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`)}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The digest of a normalized request: every field as the gateway uses it (defaults applied), and
 * each file as its name and the SHA-256 of its bytes. Equal requests give equal digests.
 */
export function requestDigest(normalized: Record<string, unknown>): Promise<string> {
  return sha256Hex(canonicalJson(normalized));
}

/** SHA-256 (hex) of bytes held in memory. */
export async function bytesDigest(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * `task` when it is the replay of the request with `digest` by `owner`; null when there is no
 * such task for this owner; 409 `idempotency_key_reused` when the key made it for another request.
 */
export function replayOf<Input>(
  task: TaskRecord<Input> | null,
  expected: {
    owner: string;
    /** The wallet of the key asking: a task of another account is never replayed to it. */
    wallet: string;
    kind: TaskRecord["kind"];
    digest: string;
    /** Names the request in the message, e.g. "video request". */
    what: string;
    /** For a task written before digests were kept: whether it is the same request. */
    sameAsUndigested?: (task: TaskRecord<Input>) => boolean;
  },
): TaskRecord<Input> | null {
  if (!task || task.owner !== expected.owner) return null;
  const same = (task.wallet_id ?? task.key_id) === expected.wallet && task.kind === expected.kind &&
    (task.request_digest == null
      ? expected.sameAsUndigested?.(task) ?? false
      : task.request_digest === expected.digest);
  if (!same) {
    throw new GatewayError(
      "idempotency_key_reused",
      409,
      `This Idempotency-Key was already used for a different ${expected.what}; ` +
        "send a new key for a new request",
      { param: "Idempotency-Key" },
    );
  }
  return task;
}
