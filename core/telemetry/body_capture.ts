/**
 * Optional capture of request and response bodies, off by default, switched on per key for a
 * while (`enable(keyId, {minutes})`). The switches live in KV, one small record per key that
 * expires with it; each instance holds the set of captured keys in memory, re-read every
 * REFRESH_MS and at once on a change made through it, so checking a request costs one map lookup
 * (none at all when nothing is captured). Captured bodies are redacted (util/redact.ts), bounded,
 * and kept CAPTURE_RETENTION_MS.
 */

import { z } from "zod";
import { kvKeys } from "../kv/kv_keys.ts";
import { redactSecrets } from "../util/redact.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

export const REFRESH_MS = 5_000;
/** How long a captured request stays readable. */
export const CAPTURE_RETENTION_MS = 24 * 3600_000;
/** Each body is kept to this many UTF-8 bytes, so a record stays under KV's 64 KiB a value. */
export const MAX_CAPTURED_BYTES = 24 * 1024;
/** The longest capture one call switches on: a day. */
export const MAX_CAPTURE_MINUTES = 24 * 60;

/** `POST /admin/keys/{id}/capture {minutes}`: fractions allowed, down to one second. */
export const captureInputSchema = z.strictObject({
  minutes: z.number().min(1 / 60).max(MAX_CAPTURE_MINUTES),
});

/** A key's capture switch. */
export interface CaptureSwitch {
  key_id: string;
  started_at: string;
  /** When capture stops by itself. */
  until: string;
}

/** One captured request. */
export interface CapturedRequest {
  request_id: string;
  key_id: string;
  at: string;
  interface: string;
  model: string | null;
  stream: boolean;
  request_body: string;
  /** The whole JSON answer, the text a stream delivered, or null when none came. */
  response_body: string | null;
  /** `json`, `stream_text` (the text of the stream's events), or `none`. */
  response_kind: "json" | "stream_text" | "none";
  /** The error the client got instead of an answer. */
  error: string | null;
  /** Set when a body was longer than MAX_CAPTURED_BYTES and was cut. */
  truncated: boolean;
}

/** `text` redacted and cut to MAX_CAPTURED_BYTES of UTF-8; whether it was cut. */
export function boundedRedacted(
  text: string,
  secrets: readonly string[] = [],
): { text: string; cut: boolean } {
  const redacted = redactSecrets(text, secrets, { maxLength: Number.MAX_SAFE_INTEGER });
  const bytes = new TextEncoder().encode(redacted);
  if (bytes.length <= MAX_CAPTURED_BYTES) return { text: redacted, cut: false };
  // A cut in the middle of a character is dropped by the decoder.
  const cut = new TextDecoder().decode(bytes.subarray(0, MAX_CAPTURED_BYTES)).replace(
    /\uFFFD$/,
    "",
  );
  return { text: `${cut}… [truncated]`, cut: true };
}

/** The capture switches and captured requests of the gateway. */
export class BodyCaptures {
  #kv: KvBackend;
  /** Key id → epoch ms when its capture ends. */
  #active = new Map<string, number>();
  #timer?: ReturnType<typeof setInterval>;

  constructor(kv: KvBackend) {
    this.#kv = kv;
  }

  /** Loads the switches and keeps re-reading them until `stop()`. */
  async start(): Promise<void> {
    await this.#reload();
    this.#timer = setInterval(() => this.#reload().catch(() => {}), REFRESH_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #reload(): Promise<void> {
    const active = new Map<string, number>();
    for await (const entry of this.#kv.list<CaptureSwitch>({ prefix: kvKeys.captureSwitches() })) {
      const until = Date.parse(entry.value.until);
      if (until > Date.now()) active.set(entry.value.key_id, until);
    }
    this.#active = active;
  }

  /** Whether requests of `keyId` are captured now. */
  isOn(keyId: string): boolean {
    if (this.#active.size === 0) return false;
    const until = this.#active.get(keyId);
    return until !== undefined && until > Date.now();
  }

  /** Captures `keyId`'s requests for `minutes` from now (a new call replaces the old end). */
  async enable(keyId: string, { minutes }: { minutes: number }): Promise<CaptureSwitch> {
    const now = Date.now();
    const ms = Math.round(minutes * 60_000);
    const record: CaptureSwitch = {
      key_id: keyId,
      started_at: new Date(now).toISOString(),
      until: new Date(now + ms).toISOString(),
    };
    await withKvRetry(() => this.#kv.set(kvKeys.captureSwitch(keyId), record, { expireIn: ms }));
    this.#active.set(keyId, now + ms);
    return record;
  }

  /** Stops capturing `keyId`; returns whether it was on. */
  async disable(keyId: string): Promise<boolean> {
    const was = this.isOn(keyId);
    await withKvRetry(() => this.#kv.delete(kvKeys.captureSwitch(keyId)));
    this.#active.delete(keyId);
    return was;
  }

  /** `keyId`'s switch, or null when it is off (an expired one is off). */
  async status(keyId: string): Promise<CaptureSwitch | null> {
    const record = (await this.#kv.get<CaptureSwitch>(kvKeys.captureSwitch(keyId))).value;
    return record && Date.parse(record.until) > Date.now() ? record : null;
  }

  /** Stores a captured request for CAPTURE_RETENTION_MS. */
  async write(record: CapturedRequest): Promise<void> {
    await withKvRetry(() =>
      this.#kv.set(kvKeys.capturedRequest(record.request_id), record, {
        expireIn: CAPTURE_RETENTION_MS,
      })
    );
  }

  /** A captured request, or null (never captured, or past its retention). */
  async read(requestId: string): Promise<CapturedRequest | null> {
    const entry = await this.#kv.get<CapturedRequest>(kvKeys.capturedRequest(requestId));
    if (!entry.value) return null;
    const age = Date.now() - Date.parse(entry.value.at);
    return age > CAPTURE_RETENTION_MS ? null : entry.value;
  }
}
