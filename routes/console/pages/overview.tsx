/**
 * The operator's Overview at /console: spend and requests today, 7 and 30 days, the upstream
 * error rate, top models and keys, running tasks, enabled models no enabled channel serves,
 * channel health, and per-day charts for 30 days. Usage comes from the rollups (the admin usage
 * service call), never a scan of the log; every tile links to the filtered list behind it.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import type { Gateway } from "../../../core/gateway.ts";
import type { UsageQuery } from "../../../core/telemetry/usage_rollups.ts";
import { BarChart } from "../bar_chart.tsx";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { type Columns, DataTable } from "../data_table.tsx";
import { CopyAsCurl } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { uncoveredModels } from "../model_coverage.ts";
import { readToday } from "../today.ts";
import { TodaySection } from "../today_section.tsx";
import { keyNames as keyNamesOf } from "../../../core/console/directory.ts";
import { adminCurl } from "../snippets.ts";
import {
  dailySeries,
  DAY_MS,
  dayStart,
  type Ranked,
  topBy,
  totalsSince,
  type UsageTotals,
} from "../usage_summary.ts";

const DAYS = 30;
const TOP = 5;
/** How many of the newest tasks are looked at for the running ones. */
const TASKS_LOOKED_AT = 200;
const CHANNELS_SHOWN = 50;

/** A console list URL with the admin API's filter names. */
function listUrl(path: string, filter: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) if (value) query.set(name, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

function Tile(
  { label, href, totals, since, money }: {
    label: string;
    href: string;
    totals: UsageTotals;
    since: string;
    money: ConsoleMoney;
  },
) {
  return (
    <a class="tile" href={href}>
      <span class="tile-label">{label}</span>
      <span class="tile-value">{money.amount(totals.cost)}</span>
      <span>{totals.requests} requests</span>
      <span class="muted">since {since}</span>
    </a>
  );
}

function RankedTable(
  { caption, rows, link, name, money }: {
    caption: string;
    rows: Ranked[];
    link: (row: Ranked) => string;
    name: (row: Ranked) => string;
    money: ConsoleMoney;
  },
) {
  return (
    <DataTable
      caption={caption}
      rows={rows}
      empty="No requests in 30 days"
      emptyAsRow
      columns={[
        { header: "Name", cell: (row) => <a href={link(row)}>{name(row)}</a> },
        { header: "Requests", cell: (row) => row.requests },
        { header: "Spend", cell: (row) => money.amount(row.cost) },
      ]}
    />
  );
}

type HealthRow = Awaited<ReturnType<typeof channelHealthRows>>[number];

const HEALTH_COLUMNS: Columns<HealthRow> = [
  { header: "Channel", cell: (row) => <a href={`/console/channels/${row.id}`}>{row.name}</a> },
  { header: "State", cell: (row) => row.enabled ? "enabled" : "disabled" },
  { header: "Attempts (1 h)", cell: (row) => row.health.requests },
  {
    header: "Success",
    cell: (row) =>
      row.health.success_rate === null ? "–" : `${(row.health.success_rate * 100).toFixed(1)} %`,
    cellClass: (row) =>
      row.health.success_rate === null ? "muted" : row.health.success_rate < 0.9 ? "bad" : "ok",
  },
  {
    header: "p50 latency",
    cell: (row) => row.health.p50_latency_ms === null ? "–" : `${row.health.p50_latency_ms} ms`,
  },
  {
    header: "Last error",
    cell: (row) =>
      row.health.last_error
        ? `${row.health.last_error_at} ${
          row.health.last_error_class ?? ""
        }: ${row.health.last_error}`
        : "–",
  },
];

/** The top keys' names in one batched read; a key deleted since keeps its id, said so. */
async function keyNames(gateway: Gateway, ids: readonly (string | null)[]) {
  const present = ids.filter((id): id is string => id !== null);
  const names = await keyNamesOf(gateway.kv, present);
  for (const id of present) if (!names.has(id)) names.set(id, `${id} (deleted)`);
  return names;
}

async function channelHealthRows(gateway: Gateway) {
  const page = await gateway.registry.listChannels({ limit: CHANNELS_SHOWN, order: "asc" });
  return await Promise.all(page.data.map(async (channel) => ({
    id: channel.id,
    name: channel.name,
    enabled: channel.enabled,
    health: await gateway.channelHealth.read(channel.id),
  })));
}

async function overviewPage(gateway: Gateway, c: ConsoleContext) {
  const now = Date.now();
  const today = dayStart(now);
  const query: UsageQuery = {
    from: today - (DAYS - 1) * DAY_MS,
    to: Math.ceil(now / 3_600_000) * 3_600_000,
    interval: "day",
    groupBy: ["key", "model"],
  };
  const rows = await gateway.requestLog.usage(query);
  const series = dailySeries(rows, { now, days: DAYS });
  const topModels = topBy(rows, { field: "model", limit: TOP });
  const topKeys = topBy(rows, { field: "key_id", limit: TOP });
  const names = await keyNames(gateway, topKeys.map((row) => row.name));
  const tasks = await gateway.tasks.list({ limit: TASKS_LOOKED_AT, order: "desc" });
  const running = {
    submitted: tasks.data.filter((task) => task.status === "submitted").length,
    in_progress: tasks.data.filter((task) => task.status === "in_progress").length,
  };
  const channels = await channelHealthRows(gateway);
  const uncovered = uncoveredModels(gateway.registry.models, gateway.registry.channels).length;
  const attempts = channels.reduce((sum, row) => sum + row.health.requests, 0);
  const failed = channels.reduce(
    (sum, row) => sum + Math.round(row.health.requests * (1 - (row.health.success_rate ?? 1))),
    0,
  );
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const sinceIso = (ms: number) => new Date(ms).toISOString();
  const periods = [
    { label: "Today", since: today },
    { label: "7 days", since: today - 6 * DAY_MS },
    { label: "30 days", since: query.from },
  ];
  const base = baseUrlOf(gateway, c.get("url"));
  const money = c.get("money");
  const todayFacts = await readToday(gateway, now);
  const channelNames = new Map(
    gateway.registry.channels.map((channel) => [channel.id, channel.name]),
  );
  return renderPage(
    c,
    <>
      <TodaySection today={todayFacts} names={channelNames} money={money} />
      <section class="card" aria-labelledby="spend-heading">
        <h2 id="spend-heading">Spend and requests</h2>
        <div class="tiles">
          {periods.map((period) => (
            <Tile
              money={money}
              label={period.label}
              href={listUrl("/console/requests", { since: sinceIso(period.since) })}
              totals={totalsSince(rows, period.since)}
              since={iso(period.since)}
            />
          ))}
          <a class="tile" href={listUrl("/console/requests", { status: "5xx" })}>
            <span class="tile-label">Upstream error rate</span>
            <span class="tile-value">
              {attempts ? `${((failed / attempts) * 100).toFixed(1)} %` : "–"}
            </span>
            <span>{failed} of {attempts} attempts failed</span>
            <span class="muted">last hour, all channels</span>
          </a>
          <a class="tile" href={listUrl("/console/tasks", { status: "in_progress" })}>
            <span class="tile-label">Running tasks</span>
            <span class="tile-value">{running.in_progress}</span>
            <span>{running.submitted} submitted, waiting</span>
            <span class="muted">of the newest {TASKS_LOOKED_AT} tasks</span>
          </a>
          <a class="tile" id="tile-uncovered" href="/console/models?coverage=uncovered">
            <span class="tile-label">Models no channel serves</span>
            <span class={`tile-value${uncovered ? " bad" : ""}`}>{uncovered}</span>
            <span>enabled, with no enabled channel</span>
            <span class="muted">callers get an error</span>
          </a>
        </div>
        <div class="charts">
          <BarChart
            id="chart-requests"
            title="Requests per day, 30 days"
            points={series.map((day) => ({ label: day.day, value: day.requests }))}
            format={String}
          />
          <BarChart
            id="chart-spend"
            title="Spend per day, 30 days"
            points={series.map((day) => ({ label: day.day, value: day.cost }))}
            format={money.full}
          />
        </div>
        <CopyAsCurl
          id="curl-usage"
          curl={adminCurl(base, {
            method: "GET",
            path: `/admin/usage?interval=day&group_by=key,model&from=${sinceIso(query.from)}`,
          })}
        />
      </section>
      <section class="card" aria-labelledby="top-heading">
        <h2 id="top-heading">Top models and keys, 30 days</h2>
        <div class="charts">
          <RankedTable
            money={money}
            caption="Top models"
            rows={topModels}
            name={(row) => row.name ?? "(no model)"}
            link={(row) =>
              listUrl("/console/requests", {
                model: row.name ?? undefined,
                since: sinceIso(query.from),
              })}
          />
          <RankedTable
            money={money}
            caption="Top keys"
            rows={topKeys}
            name={(row) => (row.name && names.get(row.name)) ?? "(no key)"}
            link={(row) =>
              listUrl("/console/requests", {
                key: row.name ?? undefined,
                since: sinceIso(query.from),
              })}
          />
        </div>
      </section>
      <section class="card" aria-labelledby="channels-heading">
        <h2 id="channels-heading">
          <a href="/console/channels">Channel health</a>
        </h2>
        <DataTable
          rows={channels}
          empty="No channels yet"
          emptyAsRow
          columns={HEALTH_COLUMNS}
        />
      </section>
    </>,
    { title: "Overview", copyButtons: true },
  );
}

export function overviewPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console", requireOperator(), (c) => overviewPage(gateway, c));
  return app;
}
