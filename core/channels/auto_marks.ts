/**
 * The marks the gateway sets on what it disabled on its own (auto_disable.ts has the rules): apart
 * so that the channel record can carry them without importing the rules, which read channels.
 */

/** One thing the gateway disabled: why, when, and its recovery probes so far. */
export interface AutoMark {
  reason: string;
  /** ISO 8601. */
  at: string;
  /** Recovery probes that failed since. */
  probes: number;
  /** When the next recovery probe is due (epoch ms). */
  next_probe_at: number;
}

/** A channel's automatic marks: the whole channel, and its keys by fingerprint (`by_key`). */
export interface AutoDisabled {
  channel: AutoMark | null;
  by_key: Record<string, AutoMark>;
}
