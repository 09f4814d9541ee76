/**
 * The Overview's "Today": errors and upstream latency tiles (spend and requests today are the
 * Overview's first tile), then today's requests, spend and errors by channel and by model.
 */

import type { Child } from "hono/jsx";
import { type Columns, DataTable } from "./data_table.tsx";
import type { ConsoleMoney } from "./money.tsx";
import { type Percentiles, type Today, type TodayRow } from "./today.ts";

function ms(value: number | null): string {
  return value === null ? "–" : `${value} ms`;
}

function percentileText(latency: Percentiles | undefined): string {
  return latency && latency.observed
    ? `${ms(latency.p50)} / ${ms(latency.p90)} / ${ms(latency.p99)}`
    : "–";
}

function requestsHref(filter: Record<string, string>): string {
  return `/console/requests?${new URLSearchParams(filter)}`;
}

function rowColumns(
  { name, money }: { name: (row: TodayRow) => Child; money: ConsoleMoney },
): Columns<TodayRow> {
  return [
    { header: "Name", cell: (row) => name(row) },
    { header: "Requests", cell: (row) => row.requests },
    { header: "Spend", cell: (row) => money.amount(row.cost) },
    {
      header: "5xx",
      cell: (row) => row.server_errors,
      cellClass: (row) => row.server_errors ? "bad" : undefined,
    },
    { header: "4xx", cell: (row) => row.client_errors },
  ];
}

export function TodaySection(
  { today, names, money }: { today: Today; names: Map<string, string>; money: ConsoleMoney },
) {
  const { since } = today;
  const channelName = (row: TodayRow) =>
    row.name
      ? <a href={`/console/channels/${row.name}`}>{names.get(row.name) ?? row.name}</a>
      : <span class="muted">(no channel)</span>;
  const modelName = (row: TodayRow) =>
    row.name
      ? <a href={requestsHref({ model: row.name, since })}>{row.name}</a>
      : <span class="muted">(no model)</span>;
  return (
    <section class="card" aria-labelledby="today-heading">
      <h2 id="today-heading">Today</h2>
      <p class="muted">Since {since.slice(0, 16).replace("T", " ")} UTC.</p>
      <div class="tiles">
        <a class="tile" href={requestsHref({ since, status: "5xx" })}>
          <span class="tile-label">Errors today</span>
          <span class={`tile-value${today.server_errors ? " bad" : ""}`}>
            {today.server_errors} 5xx
          </span>
          <span>{today.client_errors} 4xx</span>
          {today.partial ? <span class="muted">among today's newest records only</span> : null}
        </a>
        <div class="tile" id="tile-latency">
          <span class="tile-label">Upstream latency p50 / p90 / p99</span>
          <span class="tile-value">{percentileText(today.latency)}</span>
          <span>{today.latency.observed} attempts</span>
          <span class="muted">this instance, since {today.processStarted.slice(0, 16)}Z</span>
        </div>
      </div>
      <div class="charts">
        <DataTable
          caption="Today by channel"
          rows={today.channels}
          empty="No requests today"
          emptyAsRow
          columns={[
            ...rowColumns({ name: channelName, money }),
            {
              header: "p50 / p90 / p99",
              cell: (row) => percentileText(today.latencyByChannel.get(row.name ?? "")),
            },
          ]}
        />
        <DataTable
          caption="Today by model"
          rows={today.models}
          empty="No requests today"
          emptyAsRow
          columns={rowColumns({ name: modelName, money })}
        />
      </div>
      <p class="muted">
        Latency percentiles come from the <code>/metrics</code>{" "}
        histogram of this gateway process (upstream attempts since it started, interpolated within
        its buckets); with several instances each has its own. Spend and requests count every
        instance.
      </p>
    </section>
  );
}
