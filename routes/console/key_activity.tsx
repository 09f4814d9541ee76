/**
 * A key's activity on its detail page: usage per day for 30 days and by model (from the usage
 * rollups, never a scan of the log), and its recent requests and tasks linking to their pages.
 */

import type { Gateway } from "../../core/gateway.ts";
import { BarChart } from "./bar_chart.tsx";
import { DataTable } from "./data_table.tsx";
import { CopyAsCurl } from "./layout.tsx";
import { adminCurl } from "./snippets.ts";
import { ModelName, type NameBook } from "./name_links.tsx";
import type { ConsoleMoney } from "./money.tsx";
import { shownProgress } from "./task_progress.ts";
import { dailySeries, DAY_MS, dayStart, topBy } from "./usage_summary.ts";

const DAYS = 30;
const RECENT = 10;
/** How many of the newest tasks are looked at for the key's. */
const TASKS_LOOKED_AT = 200;

/** Everything the activity sections show, read with the admin API's service calls. */
export async function readKeyActivity(gateway: Gateway, keyId: string) {
  const now = Date.now();
  const from = dayStart(now) - (DAYS - 1) * DAY_MS;
  const rows = await gateway.requestLog.usage({
    from,
    to: Math.ceil(now / 3_600_000) * 3_600_000,
    interval: "day",
    groupBy: ["model"],
    keyId,
  });
  const requests = await gateway.requestLog.list({ limit: RECENT, order: "desc" }, {
    key: keyId,
  });
  const tasks = await gateway.tasks.list({ limit: TASKS_LOOKED_AT, order: "desc" }, {
    key: keyId,
  });
  return {
    from: new Date(from).toISOString(),
    days: dailySeries(rows, { now, days: DAYS }),
    models: topBy(rows, { field: "model", limit: 50 }),
    requests: requests.data,
    tasks: tasks.data.slice(0, RECENT),
  };
}

export type KeyActivity = Awaited<ReturnType<typeof readKeyActivity>>;

interface ActivityProps {
  activity: KeyActivity;
  keyId: string;
  money: ConsoleMoney;
  /** The names of what the sections show (models). */
  book: NameBook;
}

function KeyUsage({ activity, keyId, base, money }: ActivityProps & { base: string }) {
  const active = activity.days.filter((day) => day.requests > 0).reverse();
  return (
    <section class="card" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage, 30 days</h2>
      <div class="charts">
        <BarChart
          id="key-chart-requests"
          title="Requests per day"
          points={activity.days.map((day) => ({ label: day.day, value: day.requests }))}
          format={String}
        />
        <BarChart
          id="key-chart-spend"
          title="Spend per day"
          points={activity.days.map((day) => ({ label: day.day, value: day.cost }))}
          format={money.full}
        />
      </div>
      <div class="charts">
        <DataTable
          caption="Per day"
          rows={active}
          empty="No requests in 30 days"
          emptyAsRow
          columns={[
            { header: "Day (UTC)", cell: (day) => day.day },
            { header: "Requests", cell: (day) => day.requests },
            {
              header: "Tokens in / out",
              cell: (day) => <>{day.input_tokens} / {day.output_tokens}</>,
            },
            { header: "Spend", cell: (day) => money.amount(day.cost) },
          ]}
        />
        <DataTable
          caption="By model"
          rows={activity.models}
          empty="No requests in 30 days"
          emptyAsRow
          columns={[
            {
              header: "Model",
              cell: (model) => (
                <a
                  href={`/console/requests?${new URLSearchParams({
                    key: keyId,
                    ...(model.name ? { model: model.name } : {}),
                  })}`}
                >
                  {model.name ?? "(no model)"}
                </a>
              ),
            },
            { header: "Requests", cell: (model) => model.requests },
            {
              header: "Tokens in / out",
              cell: (model) => <>{model.input_tokens} / {model.output_tokens}</>,
            },
            { header: "Spend", cell: (model) => money.amount(model.cost) },
          ]}
        />
      </div>
      <CopyAsCurl
        id="curl-usage"
        curl={adminCurl(base, {
          method: "GET",
          path: `/admin/usage?interval=day&group_by=key,model&from=${activity.from}`,
        })}
      />
    </section>
  );
}

function RecentRequests({ activity, keyId, money, book }: ActivityProps) {
  return (
    <section class="card" aria-labelledby="requests-heading">
      <h2 id="requests-heading">Recent requests</h2>
      <DataTable
        rows={activity.requests}
        empty="No requests yet"
        emptyAsRow
        columns={[
          {
            header: "Request",
            cell: (request) => (
              <a href={`/console/requests/${request.id}`}>
                <code>{request.id}</code>
              </a>
            ),
          },
          { header: "When", cell: (request) => request.at },
          { header: "Model", cell: (request) => <ModelName id={request.model} book={book} /> },
          {
            header: "Status",
            cell: (request) => request.status,
            cellClass: (request) => request.status >= 400 ? "bad" : undefined,
          },
          { header: "Latency", cell: (request) => `${request.latency_ms} ms` },
          { header: "Cost", cell: (request) => money.amount(request.cost) },
        ]}
      />
      <p>
        <a href={`/console/requests?key=${keyId}`}>All requests of this key</a>
      </p>
    </section>
  );
}

function RecentTasks({ activity, keyId, money, book }: ActivityProps) {
  return (
    <section class="card" aria-labelledby="tasks-heading">
      <h2 id="tasks-heading">Recent tasks</h2>
      <DataTable
        rows={activity.tasks}
        empty={`No tasks among the newest ${TASKS_LOOKED_AT}`}
        emptyAsRow
        columns={[
          {
            header: "Task",
            cell: (task) => (
              <a href={`/console/tasks/${task.id}`}>
                <code>{task.id}</code>
              </a>
            ),
          },
          { header: "Submitted", cell: (task) => new Date(task.submit_time * 1000).toISOString() },
          { header: "Kind", cell: (task) => task.kind },
          { header: "Model", cell: (task) => <ModelName id={task.model} book={book} /> },
          { header: "Status", cell: (task) => <>{task.status} {shownProgress(task)}</> },
          {
            header: "Cost",
            cell: (task) =>
              task.cost === null ? <>{money.amount(task.held)} held</> : money.amount(task.cost),
          },
        ]}
      />
      <p>
        <a href={`/console/tasks?key=${keyId}`}>All tasks of this key</a>
      </p>
    </section>
  );
}

/** The usage, recent requests and recent tasks sections of a key's detail page. */
export function KeyActivitySections(
  { activity, keyId, base, money, book }: ActivityProps & { base: string },
) {
  return (
    <>
      <KeyUsage activity={activity} keyId={keyId} base={base} money={money} book={book} />
      <RecentRequests activity={activity} keyId={keyId} money={money} book={book} />
      <RecentTasks activity={activity} keyId={keyId} money={money} book={book} />
    </>
  );
}
