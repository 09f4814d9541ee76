/**
 * The memory soak: steady load on the gateway (non-stream chat at 32 connections and streams at
 * 8, both funded) for BENCH_SOAK_SECONDS while its RSS — and, through the V8 inspector, its heap
 * after a full GC — is sampled. Memory is flat when the last quarter of the run holds no more
 * than the second quarter (the first is warm-up).
 */

import type { Generator, RunFigures } from "./generator.ts";
import { rssNumberMb } from "./gateway_checks.ts";
import { formatSpread, type Spread, spreadOf } from "./spread.ts";

/** One sample of the gateway's memory. */
export interface SoakSample {
  /** Seconds since the load started. */
  at: number;
  rssMb: number;
  /** Heap used after a full GC; null without the inspector. */
  heapMb: number | null;
}

/** What the soak shows. */
export interface SoakSummary {
  samples: number;
  seconds: number;
  rssEarly: Spread;
  rssLate: Spread;
  heapEarly: Spread | null;
  heapLate: Spread | null;
  /** Least-squares slope over the samples after the first quarter, MB per minute. */
  rssSlopeMbPerMin: number;
  heapSlopeMbPerMin: number | null;
  /** Late median ≤ early median + 5 % (+ 2 MB of reading noise) for RSS and heap. */
  flat: boolean;
}

function slopePerMinute(points: Array<[number, number]>): number {
  if (points.length < 2) return 0;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  let numerator = 0;
  let denominator = 0;
  for (const [x, y] of points) {
    numerator += (x - meanX) * (y - meanY);
    denominator += (x - meanX) ** 2;
  }
  return denominator ? numerator / denominator * 60 : 0;
}

/**
 * Early = the second quarter of the samples, late = the last quarter (the first quarter is the
 * heap growing to its working size); at least 8 samples.
 */
export function summarizeSoak(samples: SoakSample[]): SoakSummary {
  if (samples.length < 8) throw new Error("summarizeSoak needs at least 8 samples");
  const quarter = Math.floor(samples.length / 4);
  const early = samples.slice(quarter, 2 * quarter);
  const late = samples.slice(samples.length - quarter);
  const settled = samples.slice(quarter);
  const heaps = samples.every((sample) => sample.heapMb !== null);
  const rssEarly = spreadOf(early.map((sample) => sample.rssMb));
  const rssLate = spreadOf(late.map((sample) => sample.rssMb));
  const heapEarly = heaps ? spreadOf(early.map((sample) => sample.heapMb!)) : null;
  const heapLate = heaps ? spreadOf(late.map((sample) => sample.heapMb!)) : null;
  const within = (a: Spread, b: Spread) => b.median <= a.median * 1.05 + 2;
  return {
    samples: samples.length,
    seconds: samples.at(-1)!.at,
    rssEarly,
    rssLate,
    heapEarly,
    heapLate,
    rssSlopeMbPerMin: slopePerMinute(settled.map((sample) => [sample.at, sample.rssMb])),
    heapSlopeMbPerMin: heaps
      ? slopePerMinute(settled.map((sample) => [sample.at, sample.heapMb!]))
      : null,
    flat: within(rssEarly, rssLate) && (!heapEarly || within(heapEarly, heapLate!)),
  };
}

/** A V8 inspector session on the gateway: its heap after a full GC. */
export class HeapReader {
  #socket: WebSocket;
  #next = 1;
  #waiting = new Map<number, (result: Record<string, unknown>) => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data));
      this.#waiting.get(data.id)?.(data.result ?? {});
      this.#waiting.delete(data.id);
    };
  }

  /** Connects to the inspector listening on `port` (the process runs with --inspect). */
  static async connect(port: number): Promise<HeapReader> {
    const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    return new HeapReader(socket);
  }

  #call(method: string): Promise<Record<string, unknown>> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#socket.send(JSON.stringify({ id, method }));
    });
  }

  /** Heap used after a full GC, MB. */
  async heapMb(): Promise<number> {
    await this.#call("HeapProfiler.collectGarbage");
    const usage = await this.#call("Runtime.getHeapUsage");
    return Number(usage.usedSize) / 1024 / 1024;
  }

  close(): void {
    this.#socket.close();
  }
}

/** Runs the soak load and samples memory every `sampleSeconds`. */
export async function runSoak(
  generator: Generator,
  target: { pid: number; url: string; key: string; plainBody: string; streamBody: string },
  options: {
    seconds: number;
    sampleSeconds: number;
    heap: HeapReader | null;
    log: (message: string) => void;
  },
): Promise<{ samples: SoakSample[]; plain: RunFigures; stream: RunFigures }> {
  const started = performance.now();
  const samples: SoakSample[] = [];
  const load = Promise.all([
    generator.run({ url: target.url, key: target.key, body: target.plainBody }, {
      connections: 32,
      seconds: options.seconds,
    }),
    generator.run({ url: target.url, key: target.key, body: target.streamBody }, {
      connections: 8,
      seconds: options.seconds,
    }),
  ]);
  let done = false;
  load.finally(() => done = true).catch(() => {});
  while (!done) {
    await Promise.race([
      load.catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, options.sampleSeconds * 1000)),
    ]);
    if (done) break;
    const sample: SoakSample = {
      at: (performance.now() - started) / 1000,
      rssMb: rssNumberMb(target.pid) ?? NaN,
      heapMb: options.heap ? await options.heap.heapMb() : null,
    };
    samples.push(sample);
    options.log(
      `soak ${sample.at.toFixed(0)} s: RSS ${sample.rssMb.toFixed(0)} MB` +
        (sample.heapMb === null ? "" : `, heap after GC ${sample.heapMb.toFixed(1)} MB`),
    );
  }
  const [plain, stream] = await load;
  return { samples, plain, stream };
}

/** The soak's report. */
export function formatSoak(
  summary: SoakSummary,
  runs: { plain: RunFigures; stream: RunFigures },
): string {
  const mb = (spread: Spread | null) =>
    spread ? formatSpread(spread, { digits: 1, unit: " MB" }) : "n/a";
  const slope = (value: number | null) =>
    value === null ? "n/a" : `${value >= 0 ? "+" : ""}${value.toFixed(2)} MB/min`;
  return [
    `Memory soak: ${summary.seconds.toFixed(0)} s of steady load (${
      runs.plain.rps.toFixed(0)
    } req/s non-stream at 32 connections + ${runs.stream.rps.toFixed(0)} streams/s at 8; ${
      runs.plain.errors + runs.stream.errors
    } errors), ${summary.samples} samples. Early = second quarter, late = last quarter, median (min to max).`,
    "",
    "| measure | early | late | slope after warm-up |",
    "| --- | --- | --- | --- |",
    `| RSS | ${mb(summary.rssEarly)} | ${mb(summary.rssLate)} | ${
      slope(summary.rssSlopeMbPerMin)
    } |`,
    `| heap after full GC | ${mb(summary.heapEarly)} | ${mb(summary.heapLate)} | ${
      slope(summary.heapSlopeMbPerMin)
    } |`,
    "",
    `Memory flat (late ≤ early + 5 % + 2 MB): ${summary.flat ? "yes" : "NO"}`,
  ].join("\n");
}
