/**
 * The request log: one JSON line per request on stdout and one KV record with a retention period.
 * Writes are batched off the response path; `flush()` drains them (shutdown awaits it).
 * Entries hold ids, model, channel, status, latency, tokens and cost: never secrets or prompts.
 */

import { kvKeys } from "../kv/kv_keys.ts";
import {
  idTimeBound,
  kvListOptions,
  type ListOptions,
  timeRangeSelector,
} from "../kv/list_options.ts";

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
  outcome: "ok" | "failed";
  error_class?: UpstreamErrorClass;
  status?: number;
  error?: string;
  latency_ms: number;
}

export interface RequestLogEntry {
  id: string;
  at: string;
  interface: string;
  route: string;
  key_id: string | null;
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
  /** Why a streamed answer ended: completed, client_disconnect, upstream_error. */
  outcome: string;
}

export const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;
const FLUSH_MS = 200;
const BATCH = 500;

/** Buffers request log entries and writes them in batches. */
export class RequestLog {
  #kv: Deno.Kv;
  #retentionMs: number;
  #toStdout: boolean;
  #pending: RequestLogEntry[] = [];
  #timer?: ReturnType<typeof setTimeout>;
  #flushing: Promise<void> = Promise.resolve();

  constructor(kv: Deno.Kv, options: { retentionMs?: number; stdout?: boolean } = {}) {
    this.#kv = kv;
    this.#retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.#toStdout = options.stdout ?? true;
  }

  /** Queues an entry; it is written within FLUSH_MS. */
  record(entry: RequestLogEntry): void {
    this.#pending.push(entry);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, FLUSH_MS);
  }

  /** Writes every queued entry now. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.splice(0);
    this.#flushing = this.#flushing.then(() => this.#write(batch)).catch((error) => {
      console.error(JSON.stringify({ msg: "request log write failed", error: String(error) }));
    });
    return this.#flushing;
  }

  async #write(batch: RequestLogEntry[]): Promise<void> {
    if (batch.length === 0) return;
    if (this.#toStdout) {
      const text = batch.map((entry) => JSON.stringify({ msg: "request", ...entry })).join("\n");
      await Deno.stdout.write(new TextEncoder().encode(text + "\n"));
    }
    for (let i = 0; i < batch.length; i += BATCH) {
      const atomic = this.#kv.atomic();
      for (const entry of batch.slice(i, i + BATCH)) {
        atomic.set(kvKeys.requestLog(entry.id), entry, { expireIn: this.#retentionMs });
      }
      await atomic.commit();
    }
  }

  /** Logged requests, newest first unless `options.order` is `asc`, skipping those past retention. */
  async list(options: ListOptions, filter: { key?: string } = {}) {
    const iterator = this.#kv.list<RequestLogEntry>(
      timeRangeSelector(kvKeys.requestLogs(), (ms) => idTimeBound("req", ms), options),
      kvListOptions(options),
    );
    const cutoff = Date.now() - this.#retentionMs;
    const data: RequestLogEntry[] = [];
    let seen = 0;
    for await (const entry of iterator) {
      seen++;
      if (Date.parse(entry.value.at) < cutoff) continue;
      if (filter.key && entry.value.key_id !== filter.key) continue;
      data.push(entry.value);
    }
    return { data, cursor: seen === options.limit ? iterator.cursor : null };
  }
}
