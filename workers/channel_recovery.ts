/**
 * Recovery probes: a pass that tries again what the gateway disabled on its own
 * (core/channels/auto_disabler.ts) once its next probe is due, with the channel test's minimal
 * call (never billed), and enables it again when it answers. A key is probed alone; a channel
 * with its keys that are still usable. A failed probe puts the next one further off (30 s, 1 min,
 * 2 min, 5 min, then every 10 min). A channel the operator disabled is not probed, and its
 * `enabled` is never touched: recovery clears only the gateway's own mark.
 *
 * One instance probes at a time: the pass takes a lease in KV (checked by versionstamp) and gives
 * it back when it ends; another instance's pass finds it held and does nothing. The sweeps run the
 * pass every RECOVERY_EVERY_MS, and on Deno Deploy a cron does (workers/sweeps.ts).
 */

import type { Gateway } from "../core/gateway.ts";
import type { Channel } from "../core/channels/channel_schema.ts";
import type { AutoDisabled } from "../core/channels/auto_disable.ts";
import { kvKeys } from "../core/kv/kv_keys.ts";
import { withKvRetry } from "../core/kv/kv_retry.ts";
import type { ChannelProbeResult } from "../core/upstream/channel_probe.ts";
import { testChannel } from "../routes/admin/channel_test.ts";
import { keyByFingerprint } from "../core/channels/routing.ts";

/** How often the sweeps look for due probes. */
export const RECOVERY_EVERY_MS = 10_000;
/** How long one pass may hold the lease (probes of many channels, each within its timeout). */
const LEASE_MS = 5 * 60_000;

interface RecoveryLease {
  holder: string;
  until: number;
}

/** One probe: the channel test of `channel` (restricted to what is probed). */
export type RecoveryProbe = (channel: Channel) => Promise<ChannelProbeResult>;

function probeWithChannelTest(gateway: Gateway): RecoveryProbe {
  return (channel) => testChannel(gateway, { channel, signal: new AbortController().signal });
}

function describe(result: ChannelProbeResult): string {
  return `a recovery probe passed (${result.call}: HTTP ${result.status})`;
}

/** Whether any mark in `marks` is due at `now`. */
function dueMarks(marks: AutoDisabled, now: number) {
  return {
    channel: marks.channel && marks.channel.next_probe_at <= now ? marks.channel : null,
    keys: Object.entries(marks.by_key).filter(([, mark]) => mark.next_probe_at <= now)
      .map(([fingerprint]) => fingerprint),
  };
}

async function takeLease(
  gateway: Gateway,
  now: number,
): Promise<Deno.KvEntryMaybe<unknown> | null> {
  const key = kvKeys.channelRecoveryLease();
  const entry = await withKvRetry(() => gateway.kv.get<RecoveryLease>(key));
  if (entry.value && entry.value.until > now && entry.value.holder !== gateway.instance.id) {
    return null;
  }
  const lease: RecoveryLease = { holder: gateway.instance.id, until: now + LEASE_MS };
  const result = await withKvRetry(() =>
    gateway.kv.atomic().check(entry).set(key, lease, { expireIn: LEASE_MS }).commit()
  );
  if (!result.ok) return null;
  return { key, value: lease, versionstamp: result.versionstamp };
}

async function giveBack(gateway: Gateway, lease: Deno.KvEntryMaybe<unknown>): Promise<void> {
  await withKvRetry(() => gateway.kv.atomic().check(lease).delete(lease.key).commit())
    .catch(() => {});
}

/**
 * One pass: probes what is due and returns how many probes it made. `probe` defaults to the
 * channel test (tests may give their own).
 */
export async function runRecoveryProbes(
  gateway: Gateway,
  options: { probe?: RecoveryProbe } = {},
): Promise<number> {
  const disabler = gateway.autoDisabler;
  const now = disabler.now();
  const due = [...(await disabler.all())]
    .map(([channelId, marks]) => ({ channelId, due: dueMarks(marks, now) }))
    .filter((entry) => entry.due.channel || entry.due.keys.length);
  if (due.length === 0) return 0;
  const lease = await takeLease(gateway, now);
  if (!lease) return 0;
  const probe = options.probe ?? probeWithChannelTest(gateway);
  let probes = 0;
  try {
    for (const { channelId, due: marks } of due) {
      const channel = gateway.registry.channels.find((candidate) => candidate.id === channelId);
      // Gone, or disabled by the operator: nothing to probe (the operator's switch rules).
      if (!channel || !channel.enabled) continue;
      for (const fingerprint of marks.keys) {
        const key = keyByFingerprint(channel, fingerprint);
        if (key === undefined) continue;
        probes++;
        const result = await probe({
          ...channel,
          keys: [key],
          auto_disabled: null,
        }).catch(() => null);
        const target = { kind: "key" as const, fingerprint };
        if (result?.ok) {
          await disabler.recover(channel, target, { reason: describe(result) });
          // The probe proved the key: its breaker (open since the refusals) closes too.
          await gateway.breakers.reset(channel.id, fingerprint);
        } else await disabler.probeFailed(channel.id, target);
      }
      if (marks.channel) {
        probes++;
        const result = await probe({
          ...channel,
          auto_disabled: channel.auto_disabled && { ...channel.auto_disabled, channel: null },
        }).catch(() => null);
        const target = { kind: "channel" as const };
        if (result?.ok) {
          await disabler.recover(channel, target, { reason: describe(result) });
          await gateway.breakers.reset(channel.id);
        } else await disabler.probeFailed(channel.id, target);
      }
    }
  } finally {
    await giveBack(gateway, lease);
  }
  return probes;
}
