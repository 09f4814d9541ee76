/**
 * Cost independence: two gateways, one on an empty KV file and one on a file filled with stored
 * data (bench/stored_data.ts), measured in alternating rounds — throughput at 32 connections and
 * p50 at one — so the ratio shows whether a request costs more when more is stored.
 */

import type { Generator, RunFigures } from "./generator.ts";
import { formatSpread, type Spread, spreadOf } from "./spread.ts";
import type { StoredCounts } from "./stored_data.ts";
import { processCpuMs } from "./thread_cpu.ts";

/** One gateway under test: its chat URL, a funded key and its process (for its CPU). */
export interface CostTarget {
  url: string;
  key: string;
  pid: number;
}

/** The comparison over the rounds. */
export interface StoredCostFigures {
  emptyRps: Spread;
  storedRps: Spread;
  /** Stored ÷ empty throughput at 32 connections. */
  ratio: Spread;
  /** Stored p50 − empty p50 at 1 connection, ms. */
  addedP50Ms: Spread;
  /** CPU per request (all threads) at 32 connections, µs. */
  emptyCpuUs: Spread;
  storedCpuUs: Spread;
  /** Stored ÷ empty CPU per request: the cost itself, less moved by the machine than req/s. */
  cpuRatio: Spread;
  errors: number;
}

interface Measured {
  loaded: RunFigures;
  one: RunFigures;
  /** CPU µs per request of the loaded run. */
  cpuUs: number;
}

interface Round {
  empty: Measured;
  stored: Measured;
}

/** The figures from the rounds' runs. */
export function storedCostFigures(rounds: readonly Round[]): StoredCostFigures {
  return {
    emptyRps: spreadOf(rounds.map((round) => round.empty.loaded.rps)),
    storedRps: spreadOf(rounds.map((round) => round.stored.loaded.rps)),
    ratio: spreadOf(rounds.map((round) => round.stored.loaded.rps / round.empty.loaded.rps)),
    addedP50Ms: spreadOf(
      rounds.map((round) => (round.stored.one.p50_ms ?? NaN) - (round.empty.one.p50_ms ?? NaN)),
    ),
    emptyCpuUs: spreadOf(rounds.map((round) => round.empty.cpuUs)),
    storedCpuUs: spreadOf(rounds.map((round) => round.stored.cpuUs)),
    cpuRatio: spreadOf(rounds.map((round) => round.stored.cpuUs / round.empty.cpuUs)),
    errors: rounds.reduce(
      (sum, round) =>
        sum + round.empty.loaded.errors + round.empty.one.errors + round.stored.loaded.errors +
        round.stored.one.errors,
      0,
    ),
  };
}

/** Both gateways, `rounds` times, the first of the two alternating by round. */
export async function measureStoredCost(
  generator: Generator,
  targets: { empty: CostTarget; stored: CostTarget; body: string },
  options: { rounds: number; seconds: number; latencySeconds: number; log: (m: string) => void },
): Promise<StoredCostFigures> {
  const measure = async (target: CostTarget): Promise<Measured> => {
    const cpuBefore = processCpuMs(target.pid);
    const loaded = await generator.run({ ...target, body: targets.body }, {
      connections: 32,
      seconds: options.seconds,
    });
    const cpuUs = ((processCpuMs(target.pid) - cpuBefore) * 1000) / loaded.requests;
    const one = await generator.run({ ...target, body: targets.body }, {
      connections: 1,
      seconds: options.latencySeconds,
    });
    return { loaded, one, cpuUs };
  };
  const rounds: Round[] = [];
  for (let round = 0; round < options.rounds; round++) {
    let empty;
    let stored;
    if (round % 2 === 0) {
      empty = await measure(targets.empty);
      stored = await measure(targets.stored);
    } else {
      stored = await measure(targets.stored);
      empty = await measure(targets.empty);
    }
    options.log(
      `round ${round + 1}: empty KV ${
        empty.loaded.rps.toFixed(0)
      } req/s (p50 @1 ${empty.one.p50_ms} ms), ` +
        `stored data ${stored.loaded.rps.toFixed(0)} req/s (p50 @1 ${stored.one.p50_ms} ms)`,
    );
    rounds.push({ empty, stored });
  }
  return storedCostFigures(rounds);
}

/** The comparison's report. */
export function formatStoredCost(
  figures: StoredCostFigures,
  context: { counts: StoredCounts; rounds: number; seconds: number; bootSeconds: number },
): string {
  const { counts } = context;
  return [
    `Cost with stored data: a gateway on a KV file holding ${
      counts.keys.toLocaleString("en")
    } keys, ` +
    `${counts.records.toLocaleString("en")} request-log records, ${
      counts.tasks.toLocaleString("en")
    } ` +
    `tasks and ${counts.channels} channels against one on an empty file (non-stream chat, funded ` +
    `key); ${context.rounds} alternating rounds of ${context.seconds} s, median (min to max). ` +
    `The filled gateway started in ${context.bootSeconds.toFixed(1)} s.`,
    "",
    "| measure | empty KV | stored data | stored vs empty |",
    "| --- | --- | --- | --- |",
    `| req/s @32 | ${formatSpread(figures.emptyRps, { digits: 0 })} | ${
      formatSpread(figures.storedRps, { digits: 0 })
    } | ${formatSpread(figures.ratio, { digits: 2 })} × |`,
    `| p50 @1, difference | | | ${formatSpread(figures.addedP50Ms, { digits: 3, unit: " ms" })} |`,
    `| CPU per request @32 (all threads) | ${
      formatSpread(figures.emptyCpuUs, { digits: 0, unit: " µs" })
    } | ${formatSpread(figures.storedCpuUs, { digits: 0, unit: " µs" })} | ${
      formatSpread(figures.cpuRatio, { digits: 2 })
    } × |`,
    "",
    `Errors: ${figures.errors}`,
  ].join("\n");
}
