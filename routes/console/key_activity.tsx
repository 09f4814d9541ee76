/**
 * A key's activity on its detail page: usage per day for 30 days and by model (from the usage
 * rollups, never a scan of the log), and its recent requests and tasks linking to their pages.
 */

import type { Gateway } from "../../core/gateway.ts";
import { BarChart } from "./bar_chart.tsx";
import { CopyAsCurl } from "./layout.tsx";
import { adminCurl, formatUnits } from "./snippets.ts";
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

function KeyUsage(
  { activity, keyId, base }: { activity: KeyActivity; keyId: string; base: string },
) {
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
          format={formatUnits}
        />
      </div>
      <div class="charts">
        <div class="table-wrap">
          <table>
            <caption>Per day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">Requests</th>
                <th scope="col">Tokens in / out</th>
                <th scope="col">Spend</th>
              </tr>
            </thead>
            <tbody>
              {active.length
                ? active.map((day) => (
                  <tr>
                    <td>{day.day}</td>
                    <td>{day.requests}</td>
                    <td>{day.input_tokens} / {day.output_tokens}</td>
                    <td>{formatUnits(day.cost)}</td>
                  </tr>
                ))
                : (
                  <tr>
                    <td colspan={4} class="muted">No requests in 30 days</td>
                  </tr>
                )}
            </tbody>
          </table>
        </div>
        <div class="table-wrap">
          <table>
            <caption>By model</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Requests</th>
                <th scope="col">Tokens in / out</th>
                <th scope="col">Spend</th>
              </tr>
            </thead>
            <tbody>
              {activity.models.length
                ? activity.models.map((model) => (
                  <tr>
                    <td>
                      <a
                        href={`/console/requests?${new URLSearchParams({
                          key: keyId,
                          ...(model.name ? { model: model.name } : {}),
                        })}`}
                      >
                        {model.name ?? "(no model)"}
                      </a>
                    </td>
                    <td>{model.requests}</td>
                    <td>{model.input_tokens} / {model.output_tokens}</td>
                    <td>{formatUnits(model.cost)}</td>
                  </tr>
                ))
                : (
                  <tr>
                    <td colspan={4} class="muted">No requests in 30 days</td>
                  </tr>
                )}
            </tbody>
          </table>
        </div>
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

function RecentRequests({ activity, keyId }: { activity: KeyActivity; keyId: string }) {
  return (
    <section class="card" aria-labelledby="requests-heading">
      <h2 id="requests-heading">Recent requests</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Request</th>
              <th scope="col">When</th>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col">Latency</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {activity.requests.length
              ? activity.requests.map((request) => (
                <tr>
                  <td>
                    <a href={`/console/requests/${request.id}`}>
                      <code>{request.id}</code>
                    </a>
                  </td>
                  <td>{request.at}</td>
                  <td>{request.model ?? "–"}</td>
                  <td class={request.status >= 400 ? "bad" : undefined}>{request.status}</td>
                  <td>{request.latency_ms} ms</td>
                  <td>{formatUnits(request.cost)}</td>
                </tr>
              ))
              : (
                <tr>
                  <td colspan={6} class="muted">No requests yet</td>
                </tr>
              )}
          </tbody>
        </table>
      </div>
      <p>
        <a href={`/console/requests?key=${keyId}`}>All requests of this key</a>
      </p>
    </section>
  );
}

function RecentTasks({ activity, keyId }: { activity: KeyActivity; keyId: string }) {
  return (
    <section class="card" aria-labelledby="tasks-heading">
      <h2 id="tasks-heading">Recent tasks</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Submitted</th>
              <th scope="col">Kind</th>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {activity.tasks.length
              ? activity.tasks.map((task) => (
                <tr>
                  <td>
                    <a href={`/console/tasks/${task.id}`}>
                      <code>{task.id}</code>
                    </a>
                  </td>
                  <td>{new Date(task.submit_time * 1000).toISOString()}</td>
                  <td>{task.kind}</td>
                  <td>{task.model}</td>
                  <td>{task.status} {task.progress}</td>
                  <td>
                    {task.cost === null ? `${formatUnits(task.held)} held` : formatUnits(task.cost)}
                  </td>
                </tr>
              ))
              : (
                <tr>
                  <td colspan={6} class="muted">No tasks among the newest {TASKS_LOOKED_AT}</td>
                </tr>
              )}
          </tbody>
        </table>
      </div>
      <p>
        <a href={`/console/tasks?key=${keyId}`}>All tasks of this key</a>
      </p>
    </section>
  );
}

/** The usage, recent requests and recent tasks sections of a key's detail page. */
export function KeyActivitySections(
  { activity, keyId, base }: { activity: KeyActivity; keyId: string; base: string },
) {
  return (
    <>
      <KeyUsage activity={activity} keyId={keyId} base={base} />
      <RecentRequests activity={activity} keyId={keyId} />
      <RecentTasks activity={activity} keyId={keyId} />
    </>
  );
}
