/**
 * HTTP load generator, run as its own process: N concurrent fetch loops POST one body for a
 * duration after a warm-up, then one JSON line on stdout with counts and latency percentiles.
 *
 *   deno run --allow-net bench/load.ts --url=http://127.0.0.1:8080/v1/chat/completions \
 *     --body='{"model":"m","messages":[]}' --key=sk-... --connections=32 --seconds=5 --warmup=1
 */

/** What one load run does. */
export interface LoadOptions {
  url: string;
  body: string;
  key: string;
  connections: number;
  seconds: number;
  warmup: number;
  /** Stop measuring after this many completed requests (0: no limit). */
  maxRequests: number;
  /** Abort whatever is still in flight this long after the end. */
  graceMs: number;
}

/** What one load run measured; latencies in ms, over requests completed after the warm-up. */
export interface LoadResult {
  /** Requests completed in the measured window, errors included. */
  requests: number;
  /** Non-2xx answers and failed fetches in the measured window. */
  errors: number;
  /** Successful requests per second in the measured window. */
  rps: number;
  /** Time to the end of the body; null when nothing succeeded. */
  p50_ms: number | null;
  p99_ms: number | null;
  /** Time to the first chunk of the body; null when nothing succeeded. */
  ttfb_p50_ms: number | null;
  ttfb_p99_ms: number | null;
  /** From the upstream writing its first byte to the client reading it (stamped streams only). */
  relay_p50_ms: number | null;
  relay_p99_ms: number | null;
  seconds: number;
  /** Answers in the measured window by status ("fetch_error" for failed fetches). */
  statuses: Record<string, number>;
  warmup_errors: number;
  /** Every 2xx answer of the run, warm-up and stragglers after the end included. */
  total_ok: number;
  /** The first error seen, warm-up included: status and the start of the body, or the exception. */
  error_sample: string | null;
}

interface Outcome {
  ok: boolean;
  status: string;
  ttfb: number;
  relay?: number;
  total: number;
  error?: string;
}

interface Tally {
  measuredFrom: number;
  endAt: number;
  lastDone: number;
  requests: number;
  errors: number;
  warmupErrors: number;
  totalOk: number;
  totals: number[];
  ttfbs: number[];
  relays: number[];
  statuses: Record<string, number>;
  errorSample: string | null;
}

/** Reads `--name=value` flags into LoadOptions. */
export function parseLoadArgs(args: string[]): LoadOptions {
  const flags = new Map<string, string>();
  for (const arg of args) {
    const match = arg.match(/^--([a-z-]+)=(.*)$/s);
    if (!match) throw new Error(`Unexpected argument '${arg}'; use --name=value`);
    flags.set(match[1], match[2]);
  }
  const number = (name: string, fallback: number) => {
    const value = Number(flags.get(name) ?? fallback);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number >= 0`);
    return value;
  };
  const url = flags.get("url");
  if (!url) throw new Error("--url is required");
  return {
    url,
    body: flags.get("body") ?? "{}",
    key: flags.get("key") ?? "",
    connections: Math.max(1, Math.floor(number("connections", 1))),
    seconds: number("seconds", 5),
    warmup: number("warmup", 1),
    maxRequests: Math.floor(number("max-requests", 0)),
    graceMs: number("grace-ms", 10_000),
  };
}

/** The nearest-rank percentile `p` (0..1) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

async function oneRequest(options: LoadOptions, signal: AbortSignal): Promise<Outcome> {
  const started = performance.now();
  try {
    const response = await fetch(options.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${options.key}` },
      body: options.body,
      signal,
    });
    const ok = response.status >= 200 && response.status < 300;
    if (!ok) {
      const text = await response.text();
      const total = performance.now() - started;
      return { ok, status: String(response.status), ttfb: total, total, error: text.slice(0, 300) };
    }
    let ttfb = NaN;
    let relay: number | undefined;
    if (response.body) {
      for await (const chunk of response.body) {
        if (!Number.isNaN(ttfb)) continue;
        const now = performance.now();
        ttfb = now - started;
        // A stamped upstream puts the wall-clock time it wrote its first byte in that event.
        const sentAt = /"sent_at":([0-9.]+)/.exec(new TextDecoder().decode(chunk))?.[1];
        if (sentAt) relay = performance.timeOrigin + now - Number(sentAt);
      }
    }
    const total = performance.now() - started;
    return {
      ok,
      status: String(response.status),
      ttfb: Number.isNaN(ttfb) ? total : ttfb,
      total,
      relay,
    };
  } catch (error) {
    const total = performance.now() - started;
    return { ok: false, status: "fetch_error", ttfb: total, total, error: String(error) };
  }
}

function record(tally: Tally, outcome: Outcome, done: number): void {
  if (outcome.ok) tally.totalOk++;
  if (!outcome.ok && tally.errorSample === null) {
    tally.errorSample = `${outcome.status}: ${outcome.error ?? ""}`;
  }
  if (done < tally.measuredFrom) {
    if (!outcome.ok) tally.warmupErrors++;
    return;
  }
  if (done > tally.endAt) return;
  tally.requests++;
  tally.lastDone = done;
  tally.statuses[outcome.status] = (tally.statuses[outcome.status] ?? 0) + 1;
  if (!outcome.ok) {
    tally.errors++;
    return;
  }
  tally.totals.push(outcome.total);
  tally.ttfbs.push(outcome.ttfb);
  if (outcome.relay !== undefined) tally.relays.push(outcome.relay);
}

async function requestLoop(options: LoadOptions, tally: Tally, signal: AbortSignal): Promise<void> {
  while (performance.now() < tally.endAt && !signal.aborted) {
    if (options.maxRequests > 0 && tally.requests >= options.maxRequests) return;
    const outcome = await oneRequest(options, signal);
    record(tally, outcome, performance.now());
  }
}

/** Runs the load described by `options` and measures it. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const start = performance.now();
  const tally: Tally = {
    measuredFrom: start + options.warmup * 1000,
    endAt: start + (options.warmup + options.seconds) * 1000,
    lastDone: 0,
    requests: 0,
    errors: 0,
    warmupErrors: 0,
    totalOk: 0,
    totals: [],
    ttfbs: [],
    relays: [],
    statuses: {},
    errorSample: null,
  };
  const abort = new AbortController();
  const hardStop = setTimeout(
    () => abort.abort(),
    (options.warmup + options.seconds) * 1000 + options.graceMs,
  );
  try {
    await Promise.all(
      Array.from({ length: options.connections }, () => requestLoop(options, tally, abort.signal)),
    );
  } finally {
    clearTimeout(hardStop);
  }
  const stoppedEarly = options.maxRequests > 0 && tally.requests >= options.maxRequests;
  const seconds = ((stoppedEarly ? tally.lastDone : tally.endAt) - tally.measuredFrom) / 1000;
  const totals = tally.totals.sort((a, b) => a - b);
  const ttfbs = tally.ttfbs.sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const ms = (value: number) => Number.isFinite(value) ? round(value) : null;
  return {
    requests: tally.requests,
    errors: tally.errors,
    rps: round(seconds > 0 ? (tally.requests - tally.errors) / seconds : 0),
    p50_ms: ms(percentile(totals, 0.5)),
    p99_ms: ms(percentile(totals, 0.99)),
    ttfb_p50_ms: ms(percentile(ttfbs, 0.5)),
    ttfb_p99_ms: ms(percentile(ttfbs, 0.99)),
    relay_p50_ms: tally.relays.length
      ? ms(percentile(tally.relays.sort((a, b) => a - b), 0.5))
      : null,
    relay_p99_ms: tally.relays.length ? ms(percentile(tally.relays, 0.99)) : null,
    seconds: round(seconds),
    statuses: tally.statuses,
    warmup_errors: tally.warmupErrors,
    total_ok: tally.totalOk,
    error_sample: tally.errorSample,
  };
}

if (import.meta.main) {
  const result = await runLoad(parseLoadArgs(Deno.args));
  console.log(JSON.stringify(result));
}
