/**
 * Memory with many streams open at once: for each count, held streams are opened through a
 * fresh gateway, a fresh bare forwarder and a fresh JS-pump forwarder (the bare forwarder copying
 * the body through a JavaScript stream: the floor for any server that reads the stream it
 * relays), the order turning by round, and each server's RSS is read once all are open. Figures
 * per count: RSS, RSS growth per open stream, and the gateway's difference and ratio to the
 * forwarder, each the median of the rounds with its spread.
 */

import { runningLoads } from "./generator.ts";
import { HELD_STREAM_BODY, rssNumberMb } from "./gateway_checks.ts";
import { formatSpread, type Spread, spreadOf } from "./spread.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
/** Time for the streams a client left to end and settle before the next measure. */
const SETTLE_MS = 2_000;

/** One server the streams are opened through. */
export interface StreamTarget {
  url: string;
  key: string;
  pid: number;
}

/** One server's reading with `open` streams open. */
export interface StreamReading {
  beforeMb: number;
  openMb: number;
  open: number;
}

/** The servers measured: the gateway, the bare forwarder, the JS-pump forwarder. */
export const STREAM_SERVERS = ["gateway", "forwarder", "pump"] as const;
export type StreamServerName = typeof STREAM_SERVERS[number];

/** One round's readings of one count, a server each. */
export type StreamRound = Record<StreamServerName, StreamReading>;

/** The figures of one count over the rounds. */
export interface StreamMemoryRow {
  count: number;
  /** The fewest streams that were open in any reading (all of them when nothing failed). */
  open: number;
  gatewayMb: Spread;
  forwarderMb: Spread;
  /** The JS-pump forwarder's RSS: what reading the stream in JavaScript costs by itself. */
  pumpMb: Spread;
  /** Gateway RSS − forwarder RSS with the streams open. */
  differenceMb: Spread;
  /** RSS growth per open stream, KB. */
  gatewayKbPerStream: Spread;
  forwarderKbPerStream: Spread;
  pumpKbPerStream: Spread;
  /** Gateway growth per stream ÷ forwarder growth per stream. */
  growthRatio: Spread;
}

/** Stream counts from a list such as `100,1000,5000`. */
export function parseCounts(text: string): number[] {
  const counts = text.split(",").map((part) => Number(part.trim()));
  if (!counts.length || counts.some((count) => !Number.isInteger(count) || count <= 0)) {
    throw new Error(`Stream counts must be positive whole numbers, like 100,1000,5000: ${text}`);
  }
  return counts;
}

/** The figures of one count from its rounds' readings (every server per round). */
export function streamMemoryRow(
  count: number,
  rounds: ReadonlyArray<StreamRound>,
): StreamMemoryRow {
  const growthKb = (reading: StreamReading) =>
    (reading.openMb - reading.beforeMb) * 1024 / Math.max(1, reading.open);
  return {
    count,
    open: Math.min(...rounds.flatMap((round) => STREAM_SERVERS.map((name) => round[name].open))),
    gatewayMb: spreadOf(rounds.map((round) => round.gateway.openMb)),
    forwarderMb: spreadOf(rounds.map((round) => round.forwarder.openMb)),
    pumpMb: spreadOf(rounds.map((round) => round.pump.openMb)),
    differenceMb: spreadOf(rounds.map((round) => round.gateway.openMb - round.forwarder.openMb)),
    gatewayKbPerStream: spreadOf(rounds.map((round) => growthKb(round.gateway))),
    forwarderKbPerStream: spreadOf(rounds.map((round) => growthKb(round.forwarder))),
    pumpKbPerStream: spreadOf(rounds.map((round) => growthKb(round.pump))),
    growthRatio: spreadOf(
      rounds.map((round) => growthKb(round.gateway) / growthKb(round.forwarder)),
    ),
  };
}

/** Opens `count` held streams through `target` and reads its RSS once all are open. */
export async function rssWithOpenStreams(
  target: StreamTarget,
  count: number,
): Promise<StreamReading> {
  const beforeMb = rssNumberMb(target.pid) ?? NaN;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-net",
      "bench/open_streams.ts",
      `--url=${target.url}`,
      `--key=${target.key}`,
      `--body=${HELD_STREAM_BODY}`,
      `--count=${count}`,
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  runningLoads.add(child);
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    reader.cancel().catch(() => {});
    const { open } = JSON.parse(text.trim());
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return { beforeMb, openMb: rssNumberMb(target.pid) ?? NaN, open };
  } finally {
    child.kill("SIGKILL");
    await child.status;
    runningLoads.delete(child);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }
}

/** The servers to open streams through, and how to stop them. */
export type StreamServers = Record<StreamServerName, StreamTarget> & {
  /** Stops them (when they were started for this measure). */
  stop(): Promise<void>;
};

/**
 * Every count, `rounds` times, on both servers, each count on servers from `servers()` — fresh
 * processes, so one count's streams do not raise the next one's starting point (a heap that
 * grew for 5,000 streams does not give its memory back at once).
 */
export async function measureStreamMemory(
  servers: () => Promise<StreamServers>,
  options: { counts: number[]; rounds: number; log: (message: string) => void },
): Promise<StreamMemoryRow[]> {
  const readings = new Map<number, StreamRound[]>();
  for (let round = 0; round < options.rounds; round++) {
    for (const count of options.counts) {
      // Each server goes first, second and last in turn.
      const order = STREAM_SERVERS.map((_, index) =>
        STREAM_SERVERS[(index + round) % STREAM_SERVERS.length]
      );
      const readingsOfRound: Partial<StreamRound> = {};
      const targets = await servers();
      try {
        for (const name of order) {
          readingsOfRound[name] = await rssWithOpenStreams(targets[name], count);
        }
      } finally {
        await targets.stop();
      }
      const taken = readingsOfRound as StreamRound;
      options.log(
        `round ${round + 1}, ${count} streams: ` +
          STREAM_SERVERS.map((name) =>
            `${name} ${taken[name].openMb.toFixed(0)} MB (from ${
              taken[name].beforeMb.toFixed(0)
            }, ${taken[name].open} open)`
          ).join(", "),
      );
      readings.set(count, [...(readings.get(count) ?? []), taken]);
    }
  }
  return options.counts.map((count) => streamMemoryRow(count, readings.get(count)!));
}

/** The stream memory table. */
export function formatStreamMemory(rows: StreamMemoryRow[], rounds: number): string {
  const mb = (spread: Spread) => formatSpread(spread, { digits: 0, unit: " MB" });
  const kb = (spread: Spread) => formatSpread(spread, { digits: 0, unit: " KB" });
  return [
    `RSS with streams held open (the upstream sends a chunk every 5 s), ${rounds} alternating ` +
    "rounds, median (min to max). Growth = (RSS open − RSS just before) ÷ streams open. JS pump: " +
    "the bare forwarder copying each body through a JavaScript stream, the least any server " +
    "that reads the stream it relays can hold.",
    "",
    "| streams | forwarder RSS | JS-pump RSS | gateway RSS | gateway − forwarder | forwarder growth/stream | JS-pump growth/stream | gateway growth/stream | growth ratio |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((row) =>
      `| ${row.open === row.count ? row.count : `${row.open} of ${row.count}`} | ${
        mb(row.forwarderMb)
      } | ${mb(row.pumpMb)} | ${mb(row.gatewayMb)} | ${mb(row.differenceMb)} | ${
        kb(row.forwarderKbPerStream)
      } | ${kb(row.pumpKbPerStream)} | ${kb(row.gatewayKbPerStream)} | ${
        formatSpread(row.growthRatio, { digits: 2 })
      } |`
    ),
  ].join("\n");
}
