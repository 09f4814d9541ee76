/**
 * The breakers of every channel and upstream key (breakers.ts), as routing consults them, and
 * their sharing across instances. Routing reads an in-memory view: no KV operation per request.
 * A breaker that opens, is set aside or closes again is written to the store at once
 * (`["breakers", channel, key fingerprint or ""]`), and each instance re-reads the store's open
 * breakers with one list at most every REFRESH_MS, started by a request and not awaited by it.
 * Closed-state counting (the window of recent outcomes) stays per instance. A half-open probe is
 * one request at a time across instances: a lease taken by an atomic check in the store.
 */

import { usableKeyIndexes } from "./auto_disable.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import {
  admission,
  afterFailure,
  afterSuccess,
  type Breaker,
  type BreakerPhase,
  breakerPhase,
  type BreakerSettings,
  closedBreaker,
  DEFAULT_BREAKER_SETTINGS,
  isShared,
  setAside,
  type SharedBreaker,
  type SkipReason,
} from "./breakers.ts";
import type { Channel } from "./channel_schema.ts";
import { keyHint } from "./key_hint.ts";

/** How often an instance re-reads the shared breakers, at most. */
export const REFRESH_MS = 1_000;
/** How long a half-open probe may hold its lease (a probe longer than this lets another go). */
const PROBE_LEASE_MS = 120_000;
/** A shared breaker record outlives its cooldown by this much, then the store forgets it. */
const RECORD_TTL_MS = 24 * 3600 * 1000;

/** A channel failure as the breakers count it (core/upstream/breaker_fault.ts makes it). */
export interface BreakerFault {
  /** The attempt's error class: `connect_refused`, `timeout`, `http_503`… */
  reason: string;
  /** The upstream refused the key (401/403): its breaker opens at once. */
  refused: boolean;
  /** A 429: counted against the key as well as the channel. */
  rateLimited: boolean;
  /** A 429's `retry-after`, in ms from now. */
  retryAfterMs?: number;
}

/** Routing's answer for one channel: use it (with one key), or skip it at no cost. */
export type ChannelPass =
  | {
    kind: "use";
    /** The channel narrowed to the one key to use. */
    channel: Channel;
    /** That key's fingerprint. */
    key: string;
    /** The breakers this request probes (half-open): its outcome closes or reopens them. */
    probes: string[];
  }
  | { kind: "skip"; reason: SkipReason; until: number; key?: string };

/** What the console, the admin API and /metrics show of one breaker. */
export interface BreakerView {
  state: BreakerPhase;
  /** When an open breaker becomes half-open (ISO), or null. */
  open_until: string | null;
  /** Until when a 429's retry-after sets it aside (ISO), or null. */
  aside_until: string | null;
  reasons: Array<{ at: string; reason: string }>;
}

export interface ChannelBreakersView extends BreakerView {
  keys: Array<BreakerView & { fingerprint: string }>;
}

function breakerId(channelId: string, key: string): string {
  return `${channelId}\t${key}`;
}

export class BreakerBoard {
  readonly #kv: KvBackend;
  readonly #now: () => number;
  readonly #instanceId: string;
  readonly #breakers = new Map<string, Breaker>();
  readonly #fingerprints = new WeakMap<Channel, string[] | Promise<string[]>>();
  readonly #settings = new WeakMap<Channel, BreakerSettings>();
  /** Probes this instance has in flight, by breaker id. */
  readonly #probing = new Set<string>();
  readonly #writes = new Set<Promise<unknown>>();
  #refreshedAt = -Infinity;
  #refreshing?: Promise<void>;
  /** Bumped by every local change: a refresh read before one is not applied. */
  #generation = 0;

  constructor(kv: KvBackend, options: { now?: () => number; instanceId: string }) {
    this.#kv = kv;
    this.#now = options.now ?? Date.now;
    this.#instanceId = options.instanceId;
  }

  /** The breaker clock (injectable: tests move it instead of waiting). */
  now(): number {
    return this.#now();
  }

  /** Whether a request may use `channel` now, and with which key; never a KV read of its own. */
  async admit(channel: Channel): Promise<ChannelPass> {
    if (channel.breaker?.enabled === false) return { kind: "use", channel, key: "", probes: [] };
    this.#refreshSoon();
    const now = this.#now();
    const known = this.#fingerprints.get(channel);
    const fingerprints = Array.isArray(known) ? known : await this.#fingerprintsOf(channel);
    const probes: string[] = [];
    const own = breakerId(channel.id, "");
    const channelAdmission = admission(this.#breakers.get(own) ?? closedBreaker(), now);
    if (channelAdmission.kind === "skip") return channelAdmission;
    if (channelAdmission.kind === "probe") {
      if (!await this.#takeProbe(channel.id, "")) {
        return { kind: "skip", reason: "breaker_open", until: now };
      }
      probes.push(own);
    }
    const closed: number[] = [];
    const halfOpen: number[] = [];
    let soonest: { reason: SkipReason; until: number; key: string } | undefined;
    // Keys the gateway disabled on its own (auto_disable.ts) are not candidates at all.
    const usable = channel.auto_disabled ? new Set(usableKeyIndexes(channel)) : undefined;
    fingerprints.forEach((fingerprint, index) => {
      if (usable && !usable.has(index)) return;
      const breaker = this.#breakers.get(breakerId(channel.id, fingerprint));
      const verdict = breaker ? admission(breaker, now) : { kind: "pass" as const };
      if (verdict.kind === "pass") closed.push(index);
      else if (verdict.kind === "probe") halfOpen.push(index);
      else if (!soonest || verdict.until < soonest.until) {
        soonest = { reason: verdict.reason, until: verdict.until, key: fingerprint };
      }
    });
    let chosen: number | undefined;
    for (const index of halfOpen) {
      if (await this.#takeProbe(channel.id, fingerprints[index])) {
        chosen = index;
        probes.push(breakerId(channel.id, fingerprints[index]));
        break;
      }
    }
    if (chosen === undefined && closed.length) {
      chosen = closed[Math.floor(Math.random() * closed.length)];
    }
    if (chosen === undefined) {
      this.#releaseProbes(probes);
      return soonest
        ? { kind: "skip", ...soonest }
        : { kind: "skip", reason: "breaker_open", until: now };
    }
    const narrowed = channel.keys.length === 1
      ? channel
      : { ...channel, keys: [channel.keys[chosen]] };
    return { kind: "use", channel: narrowed, key: fingerprints[chosen], probes };
  }

  /** Counts a success of `pass` on `channel` (as routing had it, all keys): closes what it probed. */
  succeeded(pass: ChannelPass & { kind: "use" }, channel: Channel): void {
    if (channel.breaker?.enabled === false) return;
    const settings = this.#settingsOf(channel);
    const now = this.#now();
    this.#update(channel.id, "", (breaker) => afterSuccess(breaker, settings, now));
    this.#update(channel.id, pass.key, (breaker) => afterSuccess(breaker, settings, now));
    this.#releaseProbes(pass.probes);
  }

  /**
   * Counts a failure of `pass` that is the channel's fault: the channel's breaker counts it; the
   * key's counts a refusal (opening at once) or a 429; a `retry-after` sets the key aside (the
   * channel, when it has one key). A probe's failure reopens what it probed. A failure that is
   * not the channel's (`null`: the client's error, or its disconnect) changes nothing.
   */
  failed(pass: ChannelPass & { kind: "use" }, channel: Channel, fault: BreakerFault | null): void {
    if (!fault || channel.breaker?.enabled === false) return this.#releaseProbes(pass.probes);
    const settings = this.#settingsOf(channel);
    const now = this.#now();
    const probed = (key: string) => pass.probes.includes(breakerId(channel.id, key));
    const failure = { reason: fault.reason };
    this.#update(channel.id, "", (breaker) => afterFailure(breaker, failure, settings, now));
    if (fault.refused || fault.rateLimited || probed(pass.key)) {
      this.#update(
        channel.id,
        pass.key,
        (breaker) => afterFailure(breaker, { ...failure, immediate: fault.refused }, settings, now),
      );
    }
    if (fault.retryAfterMs !== undefined) {
      const aside = channel.keys.length === 1 ? "" : pass.key;
      this.#update(
        channel.id,
        aside,
        (breaker) => setAside(breaker, now + fault.retryAfterMs!, "retry_after", now),
      );
    }
    this.#releaseProbes(pass.probes);
  }

  /**
   * Closes the breakers of channel `channelId` (all of them, or the key `fingerprint`'s) here and
   * in the store. Returns the ids of the breakers that were not closed.
   */
  async reset(channelId: string, fingerprint?: string): Promise<string[]> {
    await this.refresh();
    const reset: string[] = [];
    const now = this.#now();
    for (const [id, breaker] of this.#breakers) {
      const [channel, key] = id.split("\t");
      if (channel !== channelId || (fingerprint !== undefined && key !== fingerprint)) continue;
      if (isShared(breaker, now)) reset.push(key || "channel");
      this.#breakers.delete(id);
    }
    this.#generation++;
    await withKvRetry(async () => {
      const atomic = this.#kv.atomic();
      for await (const entry of this.#kv.list({ prefix: kvKeys.breakersOf(channelId) })) {
        if (fingerprint === undefined || entry.key[2] === fingerprint) atomic.delete(entry.key);
      }
      await atomic.commit();
    });
    return reset;
  }

  /** The breakers of `channel`, as the store has them now. */
  async view(channel: Channel): Promise<ChannelBreakersView> {
    await this.refresh();
    const fingerprints = await this.#fingerprintsOf(channel);
    return {
      ...this.#viewOf(breakerId(channel.id, "")),
      keys: fingerprints.map((fingerprint) => ({
        fingerprint,
        ...this.#viewOf(breakerId(channel.id, fingerprint)),
      })),
    };
  }

  /** The phase of each channel's own breaker and how many of its keys are not closed. */
  phases(channels: readonly Channel[]): Array<{ channel: string; phase: number; keys: number }> {
    const now = this.#now();
    const codes: Record<BreakerPhase, number> = { closed: 0, half_open: 1, open: 2 };
    return channels.map((channel) => {
      const own = this.#breakers.get(breakerId(channel.id, ""));
      const ownAside = own ? admission(own, now).kind === "skip" : false;
      let keys = 0;
      for (const [id, breaker] of this.#breakers) {
        if (id.startsWith(`${channel.id}\t`) && !id.endsWith("\t") && isShared(breaker, now)) {
          keys++;
        }
      }
      return {
        channel: channel.id,
        phase: ownAside ? 2 : own ? codes[breakerPhase(own, now)] : 0,
        keys,
      };
    });
  }

  /** Re-reads the shared breakers now (views and tests; routing uses the periodic refresh). */
  refresh(): Promise<void> {
    this.#refreshedAt = performance.now();
    return this.#refreshing ??= this.#read().finally(() => this.#refreshing = undefined);
  }

  /** Waits for the store writes made so far. */
  async flush(): Promise<void> {
    while (this.#writes.size) await Promise.allSettled([...this.#writes]);
  }

  #refreshSoon(): void {
    if (this.#refreshing || performance.now() - this.#refreshedAt < REFRESH_MS) return;
    this.refresh().catch((error) =>
      console.error(JSON.stringify({ msg: "breaker refresh failed", error: String(error) }))
    );
  }

  async #read(): Promise<void> {
    await this.flush();
    const generation = this.#generation;
    const shared = new Map<string, SharedBreaker>();
    await withKvRetry(async () => {
      shared.clear();
      for await (const entry of this.#kv.list<SharedBreaker>({ prefix: kvKeys.breakers() })) {
        shared.set(breakerId(String(entry.key[1]), String(entry.key[2])), entry.value);
      }
    });
    if (generation !== this.#generation) return;
    for (const [id, breaker] of this.#breakers) {
      if (!shared.has(id) && isShared(breaker, -Infinity)) {
        this.#breakers.set(id, { ...closedBreaker(), window: breaker.window });
      }
    }
    for (const [id, record] of shared) {
      const window = this.#breakers.get(id)?.window ?? [];
      this.#breakers.set(id, {
        openings: record.openings,
        open_until: record.open_until,
        aside_until: record.aside_until,
        reasons: record.reasons ?? [],
        window,
      });
    }
  }

  #update(channelId: string, key: string, change: (breaker: Breaker) => Breaker): void {
    const id = breakerId(channelId, key);
    const before = this.#breakers.get(id) ?? closedBreaker();
    const after = change(before);
    if (after === before) return;
    this.#breakers.set(id, after);
    if (
      before.open_until === after.open_until && before.aside_until === after.aside_until &&
      before.openings === after.openings
    ) return;
    this.#generation++;
    const now = this.#now();
    const { window: _window, ...shared } = after;
    const record = kvKeys.breaker(channelId, key);
    const stored: Promise<unknown> = isShared(after, now)
      ? withKvRetry(() => this.#kv.set(record, shared, { expireIn: RECORD_TTL_MS }))
      : withKvRetry(() => this.#kv.delete(record));
    const write = stored.catch((error) =>
      console.error(JSON.stringify({ msg: "breaker write failed", error: String(error) }))
    );
    this.#writes.add(write);
    write.finally(() => this.#writes.delete(write));
  }

  /** Takes the one probe of a half-open breaker: here, then across instances. */
  async #takeProbe(channelId: string, key: string): Promise<boolean> {
    const id = breakerId(channelId, key);
    if (this.#probing.has(id)) return false;
    this.#probing.add(id);
    try {
      const taken = await withKvRetry(async () => {
        const lease = kvKeys.breakerProbe(channelId, key);
        const current = await this.#kv.get<{ until: number }>(lease);
        if (current.value && current.value.until > Date.now()) return false;
        const result = await this.#kv.atomic().check(current)
          .set(lease, { instance: this.#instanceId, until: Date.now() + PROBE_LEASE_MS }, {
            expireIn: PROBE_LEASE_MS,
          })
          .commit();
        return result.ok;
      });
      if (!taken) this.#probing.delete(id);
      return taken;
    } catch (error) {
      this.#probing.delete(id);
      throw error;
    }
  }

  #releaseProbes(ids: readonly string[]): void {
    for (const id of ids) {
      this.#probing.delete(id);
      const [channelId, key] = id.split("\t");
      const release = withKvRetry(() => this.#kv.delete(kvKeys.breakerProbe(channelId, key)))
        .catch(() => {});
      this.#writes.add(release);
      release.finally(() => this.#writes.delete(release));
    }
  }

  #viewOf(id: string): BreakerView {
    const breaker = this.#breakers.get(id) ?? closedBreaker();
    const now = this.#now();
    const iso = (ms: number | undefined) => ms === undefined ? null : new Date(ms).toISOString();
    return {
      state: breakerPhase(breaker, now),
      open_until: iso(breaker.open_until),
      aside_until: breaker.aside_until !== undefined && breaker.aside_until > now
        ? iso(breaker.aside_until)
        : null,
      reasons: breaker.reasons.map(({ at, reason }) => ({ at: iso(at)!, reason })),
    };
  }

  #settingsOf(channel: Channel): BreakerSettings {
    let settings = this.#settings.get(channel);
    if (!settings) {
      const { enabled: _enabled, ...own } = channel.breaker ?? {};
      settings = { ...DEFAULT_BREAKER_SETTINGS, ...own };
      this.#settings.set(channel, settings);
    }
    return settings;
  }

  #fingerprintsOf(channel: Channel): Promise<string[]> {
    const known = this.#fingerprints.get(channel);
    if (known) return Promise.resolve(known);
    const made = Promise.all(channel.keys.map(async (key) => (await keyHint(key)).fingerprint));
    this.#fingerprints.set(channel, made);
    made.then((list) => this.#fingerprints.set(channel, list), () => {});
    return made;
  }
}
