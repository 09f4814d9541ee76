/**
 * BENCH_ONLY=dead_channel: what one dead channel of two costs. The gateway serves the bench model
 * through its healthy channel alone, then with a dead channel (connection refused) in front of
 * it (higher priority), breakers on, then the same with the dead channel's breaker off: req/s at
 * 32 connections, p50 at 1 connection, and the failed attempts per request on the dead channel
 * (from /metrics), each state in turn in every round (the order turning by round).
 */

import { admin, ADMIN_TOKEN, MODEL } from "./gateway_checks.ts";
import type { Generator, RunFigures } from "./generator.ts";
import { formatSpread, type Spread, spreadOf } from "./spread.ts";

const STATES = ["healthy only", "dead channel, breakers on", "dead channel, breakers off"] as const;
type State = typeof STATES[number];

export interface DeadChannelRow {
  state: State;
  rps: Spread;
  p50Ms: Spread;
  /** Failed attempts on the dead channel per request served (32-connection runs). */
  failedPerRequest: Spread;
  errors: number;
}

/** A port nothing listens on: connections to it are refused at once. */
function refusedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function failedOnDead(gatewayUrl: string, channelId: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  })).text();
  const line = text.split("\n").find((row) =>
    row.startsWith(
      `gateway_upstream_attempts_total{channel="${channelId}",outcome="failed"}`,
    )
  );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

export async function measureDeadChannel(
  generator: Generator,
  target: { gatewayUrl: string; path: string; key: string; body: string },
  options: { rounds: number; seconds: number; latencySeconds: number; log: (line: string) => void },
): Promise<DeadChannelRow[]> {
  const dead = await admin(target.gatewayUrl, "POST", "/admin/channels", {
    name: "bench-dead",
    type: "openai",
    base_url: `http://127.0.0.1:${refusedPort()}/v1`,
    keys: ["sk-bench"],
    models: [MODEL],
    priority: 1,
    enabled: false,
  }, 201) as { id: string };
  const setState = async (state: State) => {
    await admin(target.gatewayUrl, "PATCH", `/admin/channels/${dead.id}`, {
      enabled: state !== "healthy only",
      breaker: { enabled: state !== "dead channel, breakers off" },
    }, 200);
  };
  const runs = new Map<State, Array<{ at32: RunFigures; at1: RunFigures; failed: number }>>();
  for (let round = 0; round < options.rounds; round++) {
    const order = [
      ...STATES.slice(round % STATES.length),
      ...STATES.slice(0, round % STATES.length),
    ];
    for (const state of order) {
      await setState(state);
      const url = target.gatewayUrl + target.path;
      const failedBefore = await failedOnDead(target.gatewayUrl, dead.id);
      const at32 = await generator.run({ url, key: target.key, body: target.body }, {
        connections: 32,
        seconds: options.seconds,
      });
      const failed = (await failedOnDead(target.gatewayUrl, dead.id)) - failedBefore;
      const at1 = await generator.run({ url, key: target.key, body: target.body }, {
        connections: 1,
        seconds: options.latencySeconds,
      });
      options.log(
        `round ${round + 1}, ${state}: ${
          at32.rps.toFixed(0)
        } req/s @32, p50 @1 ${at1.p50_ms} ms, ` +
          `${(failed / Math.max(1, at32.requests)).toFixed(4)} failed attempts a request`,
      );
      runs.set(state, [...(runs.get(state) ?? []), { at32, at1, failed }]);
    }
  }
  await admin(target.gatewayUrl, "DELETE", `/admin/channels/${dead.id}`, undefined, 204);
  return STATES.map((state) => {
    const list = runs.get(state)!;
    return {
      state,
      rps: spreadOf(list.map((run) => run.at32.rps)),
      p50Ms: spreadOf(list.map((run) => run.at1.p50_ms ?? NaN)),
      failedPerRequest: spreadOf(list.map((run) => run.failed / Math.max(1, run.at32.requests))),
      errors: list.reduce((sum, run) => sum + run.at32.errors + run.at1.errors, 0),
    };
  });
}

export function formatDeadChannel(
  rows: DeadChannelRow[],
  config: { rounds: number; seconds: number },
): string {
  const healthy = rows[0];
  const lines = [
    `One dead channel of two (connection refused, in front by priority): median of ${config.rounds} ` +
    `rounds, ${config.seconds} s at 32 connections, p50 at 1 connection`,
    "| state | req/s @32 | ratio to healthy only | p50 @1 | added p50 | failed attempts / request | errors |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const row of rows) {
    const ratio = spreadOf(
      row.rps.values.map((value, index) => value / healthy.rps.values[index]),
    );
    const added = spreadOf(
      row.p50Ms.values.map((value, index) => value - healthy.p50Ms.values[index]),
    );
    lines.push(
      `| ${row.state} | ${formatSpread(row.rps, { digits: 0 })} | ${formatSpread(ratio)} | ` +
        `${formatSpread(row.p50Ms, { digits: 2, unit: " ms" })} | ` +
        `${formatSpread(added, { digits: 2, unit: " ms" })} | ` +
        `${formatSpread(row.failedPerRequest, { digits: 4 })} | ${row.errors} |`,
    );
  }
  const on = rows[1];
  const ratio = on.rps.median / healthy.rps.median;
  lines.push(
    "",
    `Breakers on: ${(ratio * 100).toFixed(1)} % of the healthy-only throughput, p50 ${
      (on.p50Ms.median - healthy.p50Ms.median).toFixed(2)
    } ms added (goal: within 10 %: ${Math.abs(1 - ratio) <= 0.1 ? "met" : "NOT met"}).`,
  );
  return lines.join("\n");
}
