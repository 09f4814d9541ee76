/**
 * Automatic disabling, in KV and in this process (rules: auto_disable.ts).
 *
 * Counting happens in memory: each instance counts the refusals in a row of each key and how long
 * each channel has failed without a success, so an attempt costs no KV write. Crossing a line
 * writes one record per channel (`channel_auto_disabled/<id>`) in a commit that checks it and
 * bumps the catalog version, so every instance's registry reloads it within REFRESH_MS (2 s) and
 * routing skips what it marks. The same commit writes the change's webhook outbox event (a hook
 * given at wiring), and the change is audited with actor `gateway` after it.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvAtomic, KvBackend } from "../kv/kv_backend.ts";
import type { AuditLog } from "../audit/audit_log.ts";
import type { Channel } from "./channel_schema.ts";
import {
  afterFailedProbe,
  attemptVerdict,
  type AutoDisabled,
  type AutoMark,
  disableAfterMs,
  isEmpty,
  newMark,
  NO_MARKS,
  refusalsToDisable,
} from "./auto_disable.ts";

/** One change the gateway made on its own, as its webhook event and audit record tell it. */
export interface AutoChange {
  event: "channel.disabled" | "channel.recovered";
  channel_id: string;
  channel_name: string;
  /** The key's fingerprint when the change is one key's; null for the whole channel. */
  key_fingerprint: string | null;
  reason: string;
  /** ISO 8601. */
  at: string;
}

/** What one attempt tells the disabler (from the failover loop). */
export interface AttemptOutcome {
  channel: Channel;
  keyFingerprint?: string;
  outcome: "ok" | "failed";
  failure?: { status?: number; errorClass: string; message: string };
}

export interface AutoDisablerOptions {
  /** The clock (tests drive it). */
  now?: () => number;
  /** Written in the commit of each change: the webhook outbox event. */
  writeEvent?: (atomic: KvAtomic, change: AutoChange) => void;
  /** Called after each change's commit (wakes the webhook worker). */
  committed?: (change: AutoChange) => void;
  /** Re-reads the registry's snapshot after a change, so this instance routes by it at once. */
  reload: () => Promise<void>;
  /** Keeps background writes alive through shutdown (Gateway.track). */
  track?: <T>(work: Promise<T>) => Promise<T>;
  audit: AuditLog;
}

type Target = { kind: "channel" } | { kind: "key"; fingerprint: string };

function markOf(marks: AutoDisabled, target: Target): AutoMark | null {
  return target.kind === "channel" ? marks.channel : marks.by_key[target.fingerprint] ?? null;
}

function withMark(marks: AutoDisabled, target: Target, mark: AutoMark | null): AutoDisabled {
  if (target.kind === "channel") return { ...marks, channel: mark };
  const by_key = { ...marks.by_key };
  if (mark) by_key[target.fingerprint] = mark;
  else delete by_key[target.fingerprint];
  return { ...marks, by_key };
}

export class AutoDisabler {
  readonly #kv: KvBackend;
  readonly #options: AutoDisablerOptions;
  readonly now: () => number;
  /** Refusals in a row, by `channel id/fingerprint`. */
  readonly #refusals = new Map<string, number>();
  /** Since when each channel has failed with no success (ms), by channel id. */
  readonly #failingSince = new Map<string, number>();

  /** `observe`, bound: given to the failover loops. */
  readonly observer = (attempt: AttemptOutcome): void => this.observe(attempt);

  constructor(kv: KvBackend, options: AutoDisablerOptions) {
    this.#kv = kv;
    this.#options = options;
    this.now = options.now ?? Date.now;
  }

  /** Counts one attempt's outcome; a line crossed writes the mark (in the background). */
  observe(attempt: AttemptOutcome): void {
    const { channel, keyFingerprint } = attempt;
    const verdict = attemptVerdict(attempt.outcome, attempt.failure);
    if (verdict === "neither") return;
    const refusalKey = `${channel.id}/${keyFingerprint}`;
    if (verdict === "ok") {
      this.#failingSince.delete(channel.id);
      if (keyFingerprint) this.#refusals.delete(refusalKey);
      return;
    }
    const now = this.now();
    const since = this.#failingSince.get(channel.id) ?? now;
    this.#failingSince.set(channel.id, since);
    const detail = attempt.failure?.message ?? "failed";
    if (verdict === "key_refused" && keyFingerprint) {
      const refusals = (this.#refusals.get(refusalKey) ?? 0) + 1;
      this.#refusals.set(refusalKey, refusals);
      const limit = refusalsToDisable(channel);
      if (limit > 0 && refusals >= limit && !channel.auto_disabled?.by_key[keyFingerprint]) {
        this.#background(this.disable(channel, { kind: "key", fingerprint: keyFingerprint }, {
          reason:
            `the upstream refused the key ${refusals} times in a row (HTTP ${attempt.failure?.status}): ${detail}`
              .slice(0, 500),
        }));
      }
    }
    const afterMs = disableAfterMs(channel);
    if (afterMs > 0 && now - since >= afterMs && !channel.auto_disabled?.channel) {
      this.#background(this.disable(channel, { kind: "channel" }, {
        reason: `every attempt failed for ${
          Math.round((now - since) / 1000)
        } s; the last: ${detail}`.slice(0, 500),
      }));
    }
  }

  #background(work: Promise<unknown>): void {
    const tracked = (this.#options.track ?? ((w) => w))(work);
    tracked.catch((error) =>
      console.error(JSON.stringify({ msg: "auto-disable not written", error: String(error) }))
    );
  }

  /** The marks of one channel (none: NO_MARKS). */
  async marksOf(channelId: string): Promise<AutoDisabled> {
    return (await this.#kv.get<AutoDisabled>(kvKeys.channelAutoDisabled(channelId))).value ??
      NO_MARKS;
  }

  /** Every channel's marks, by channel id. */
  async all(): Promise<Map<string, AutoDisabled>> {
    const found = new Map<string, AutoDisabled>();
    const entries = this.#kv.list<AutoDisabled>({ prefix: kvKeys.channelsAutoDisabled() });
    for await (const entry of entries) found.set(String(entry.key.at(-1)), entry.value);
    return found;
  }

  /**
   * Changes one channel's marks by `change` in a commit that checks them (read again on a race).
   * `bump`: routing reads the change (the catalog version moves, every registry reloads).
   */
  async #update(
    channelId: string,
    change: (marks: AutoDisabled) => AutoDisabled | null,
    options: { bump: boolean; event?: (atomic: KvAtomic) => void },
  ): Promise<{ before: AutoDisabled; after: AutoDisabled } | null> {
    const key = kvKeys.channelAutoDisabled(channelId);
    for (let round = 0; round < 20; round++) {
      const entry = await withKvRetry(() => this.#kv.get<AutoDisabled>(key));
      const before = entry.value ?? NO_MARKS;
      const after = change(before);
      if (after === null) return null;
      const atomic = this.#kv.atomic().check(entry);
      if (isEmpty(after)) atomic.delete(key);
      else atomic.set(key, after);
      if (options.bump) atomic.set(kvKeys.catalogVersion(), Date.now());
      options.event?.(atomic);
      const result = await withKvRetry(() => atomic.commit());
      if (!result.ok) continue;
      if (options.bump) await withKvRetry(() => this.#options.reload());
      return { before, after };
    }
    throw new Error(`the marks of channel ${channelId} kept changing`);
  }

  /** Marks `target` of `channel` disabled; false when it already was. */
  disable(channel: Channel, target: Target, input: { reason: string }): Promise<boolean> {
    const now = this.now();
    const mark = newMark(input.reason, now);
    return this.#changeAndRecord(channel, target, {
      event: "channel.disabled",
      reason: input.reason,
      at: mark.at,
      change: (marks) => markOf(marks, target) ? null : withMark(marks, target, mark),
    });
  }

  /** Clears the mark of `target` after a probe passed; false when there was none. */
  recover(channel: Channel, target: Target, input: { reason: string }): Promise<boolean> {
    if (target.kind === "channel") this.#failingSince.delete(channel.id);
    else this.#refusals.delete(`${channel.id}/${target.fingerprint}`);
    return this.#changeAndRecord(channel, target, {
      event: "channel.recovered",
      reason: input.reason,
      at: new Date(this.now()).toISOString(),
      change: (marks) => markOf(marks, target) ? withMark(marks, target, null) : null,
    });
  }

  /** Puts the next probe of `target` further off after one that failed. */
  async probeFailed(channelId: string, target: Target): Promise<void> {
    const now = this.now();
    await this.#update(channelId, (marks) => {
      const mark = markOf(marks, target);
      return mark ? withMark(marks, target, afterFailedProbe(mark, now)) : null;
    }, { bump: false });
  }

  /**
   * The operator's re-enable: clears every mark of the channel (the admin API audits it as the
   * operator's change). Counts start again from zero.
   */
  async clear(channelId: string): Promise<void> {
    this.#failingSince.delete(channelId);
    for (const key of [...this.#refusals.keys()]) {
      if (key.startsWith(`${channelId}/`)) this.#refusals.delete(key);
    }
    await this.#update(channelId, (marks) => isEmpty(marks) ? null : NO_MARKS, { bump: true });
  }

  async #changeAndRecord(
    channel: Channel,
    target: Target,
    input: {
      event: AutoChange["event"];
      reason: string;
      at: string;
      change: (marks: AutoDisabled) => AutoDisabled | null;
    },
  ): Promise<boolean> {
    const change: AutoChange = {
      event: input.event,
      channel_id: channel.id,
      channel_name: channel.name,
      key_fingerprint: target.kind === "key" ? target.fingerprint : null,
      reason: input.reason,
      at: input.at,
    };
    const written = await this.#update(channel.id, input.change, {
      bump: true,
      event: (atomic) => this.#options.writeEvent?.(atomic, change),
    });
    if (!written) return false;
    this.#options.committed?.(change);
    await this.#options.audit.write({
      actor: "gateway",
      client_address: null,
      method: input.event === "channel.disabled" ? "AUTO_DISABLE" : "AUTO_RECOVER",
      route: `gateway:${input.event}`,
      target: { kind: "channel", id: channel.id },
      before: { auto_disabled: written.before },
      after: { auto_disabled: written.after },
      status: 200,
      error_code: null,
      request_id: null,
    }).catch((error) =>
      console.error(JSON.stringify({ msg: "audit record not written", error: String(error) }))
    );
    return true;
  }
}
