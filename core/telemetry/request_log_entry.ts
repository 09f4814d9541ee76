/**
 * What the request log keeps of one request and of each of its upstream attempts. Its own file so
 * the log's parts (record format, indexes, query, rollups, channel health) read it without
 * importing the log itself.
 */

import type { Receipt } from "../billing/receipt.ts";

/**
 * Why an attempt failed, in words an operator can act on: the network (`connect_refused`,
 * `dns`, `tls`, `reset`, `network`), the clock (`timeout`), the upstream's status
 * (`http_<status>`), or an answer the gateway could not read (`bad_answer`).
 */
export type UpstreamErrorClass =
  | "connect_refused"
  | "dns"
  | "tls"
  | "timeout"
  | "reset"
  | "network"
  | "bad_answer"
  | "too_large"
  | "client_closed"
  | `http_${number}`;

/** One attempt's record, for the request log. */
export interface AttemptRecord {
  channel_id: string;
  /** The upstream URL called, without its query (which may carry a key). */
  url: string | null;
  /** `skipped`: routing passed the channel by, with no call, because of its breaker. */
  outcome: "ok" | "failed" | "skipped";
  /** Why a channel was skipped: its breaker is open, or a 429's retry-after set it aside. */
  reason?: "breaker_open" | "retry_after";
  error_class?: UpstreamErrorClass;
  status?: number;
  error?: string;
  /** Absent on a skipped attempt (no call was made). */
  latency_ms?: number;
}

export interface RequestLogEntry {
  id: string;
  at: string;
  interface: string;
  route: string;
  key_id: string | null;
  /** The key's account; absent on records written before accounts. */
  account_id?: string | null;
  model: string | null;
  channel_id: string | null;
  status: number;
  latency_ms: number;
  stream: boolean;
  attempts: number;
  /** Each upstream attempt: channel, URL without query, outcome, error class, latency. */
  upstream_attempts: AttemptRecord[];
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  usage_source: "upstream" | "estimate" | null;
  cost: number;
  error_code: string | null;
  /**
   * Why a streamed answer ended: completed, client_disconnect, upstream_error, gateway_shutdown
   * (still open at a graceful stop's deadline).
   */
  outcome: string;
  /** Video requests: what read the reference media durations (`ffprobe` or `in-process`). */
  duration_reader?: string;
  /** Images delivered (billed). */
  images?: number;
  /** Video seconds billed (output and references, to the millisecond). */
  billed_seconds?: number;
  /** Request fields the channel could not honour (`x-gateway-ignored-fields`). */
  ignored_fields?: string[];
  /** The task the request made, if any. */
  task_id?: string;
  /** `succeeded` or `failed` once the task ended. */
  task_status?: string;
  /**
   * Set while the request's task runs: the record is completed (cost, units, channel, receipt)
   * when the task ends, and is counted in the usage rollups only then.
   */
  task_pending?: true;
  /** What the request was billed and why, with its ledger entry ids (docs/billing.md). */
  receipt?: Receipt;
  /** Set when a field was too long and was cut. */
  truncated?: true;
  /** Set when the request's bodies were captured: `GET /admin/requests/{id}/capture`. */
  captured?: true;
}
