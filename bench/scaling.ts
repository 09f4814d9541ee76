/**
 * How cost grows with load: requests/s of the forwarder and the gateway at 1, 8, 32 and 128
 * connections (non-stream chat, funded key), the two taking turns going first by round, with
 * the gateway's ratio to the forwarder and its added p50 at each level.
 */

import type { Generator, RunFigures } from "./generator.ts";
import { formatSpread, type Spread, spreadOf } from "./spread.ts";

export const SCALING_CONNECTIONS = [1, 8, 32, 128];

/** The figures of one connection count over the rounds. */
export interface ScalingRow {
  connections: number;
  forwarderRps: Spread;
  gatewayRps: Spread;
  ratio: Spread;
  /** Gateway p50 − forwarder p50, ms. */
  addedP50Ms: Spread;
  errors: number;
}

/** The row of one connection count from its rounds' runs. */
export function scalingRow(
  connections: number,
  rounds: ReadonlyArray<{ forwarder: RunFigures; gateway: RunFigures }>,
): ScalingRow {
  return {
    connections,
    forwarderRps: spreadOf(rounds.map((round) => round.forwarder.rps)),
    gatewayRps: spreadOf(rounds.map((round) => round.gateway.rps)),
    ratio: spreadOf(rounds.map((round) => round.gateway.rps / round.forwarder.rps)),
    addedP50Ms: spreadOf(
      rounds.map((round) => (round.gateway.p50_ms ?? NaN) - (round.forwarder.p50_ms ?? NaN)),
    ),
    errors: rounds.reduce((sum, round) => sum + round.forwarder.errors + round.gateway.errors, 0),
  };
}

/** Every connection count, `rounds` times, on both servers. */
export async function measureScaling(
  generator: Generator,
  targets: { forwarder: string; gateway: string; key: string; body: string },
  options: { connections: number[]; seconds: number; rounds: number; log: (m: string) => void },
): Promise<ScalingRow[]> {
  const runs = new Map<number, Array<{ forwarder: RunFigures; gateway: RunFigures }>>();
  for (let round = 0; round < options.rounds; round++) {
    for (const connections of options.connections) {
      const run = (url: string) =>
        generator.run({ url, key: targets.key, body: targets.body }, {
          connections,
          seconds: options.seconds,
        });
      let forwarder: RunFigures;
      let gateway: RunFigures;
      if (round % 2 === 0) {
        forwarder = await run(targets.forwarder);
        gateway = await run(targets.gateway);
      } else {
        gateway = await run(targets.gateway);
        forwarder = await run(targets.forwarder);
      }
      options.log(
        `round ${round + 1}, @${connections}: forwarder ${forwarder.rps.toFixed(0)}, gateway ${
          gateway.rps.toFixed(0)
        } req/s`,
      );
      runs.set(connections, [...(runs.get(connections) ?? []), { forwarder, gateway }]);
    }
  }
  return options.connections.map((connections) => scalingRow(connections, runs.get(connections)!));
}

/** The scaling table. */
export function formatScaling(rows: ScalingRow[], options: { rounds: number; seconds: number }) {
  return [
    `Requests/s by connections (non-stream chat, funded key), ${options.rounds} alternating ` +
    `rounds of ${options.seconds} s, median (min to max).`,
    "",
    "| connections | forwarder req/s | gateway req/s | gateway ÷ forwarder | added p50 | errors |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map((row) =>
      `| ${row.connections} | ${formatSpread(row.forwarderRps, { digits: 0 })} | ${
        formatSpread(row.gatewayRps, { digits: 0 })
      } | ${formatSpread(row.ratio, { digits: 2 })} | ${
        formatSpread(row.addedP50Ms, { digits: 2, unit: " ms" })
      } | ${row.errors} |`
    ),
  ].join("\n");
}
