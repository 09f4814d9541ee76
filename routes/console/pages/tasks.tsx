/**
 * Tasks: image and video tasks with the admin API's filters (kind, status, model, key, time range)
 * and paging, showing status, progress and cost. The operator sees every key's; a key holder the
 * same list narrowed to its own key, without channels.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import type { TaskRecord } from "../../../core/tasks/task_record.ts";
import { TASK_STATUSES, taskFilter } from "../../admin/tasks.ts";
import { listed, listOptions } from "../../admin/shared.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { CopyAsCurl } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { withUtcTimes } from "../time_range.ts";
import { RangeAndOrderFields } from "../range_fields.tsx";
import { renderPage } from "../render.tsx";
import { adminCurl, formatUnits } from "../snippets.ts";
import { taskDetailPages } from "./task_detail.tsx";

function timeOf(unixSeconds: number | null): string {
  return unixSeconds === null ? "" : new Date(unixSeconds * 1000).toISOString().slice(0, 19)
    .replace("T", " ");
}

function TaskRows({ tasks, operator }: { tasks: TaskRecord[]; operator: boolean }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Submitted (UTC)</th>
            <th scope="col">Kind</th>
            <th scope="col">Model</th>
            {operator ? <th scope="col">Key</th> : null}
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <tr>
              <td>
                <a href={`/console/tasks/${task.id}`}>{timeOf(task.submit_time)}</a>
              </td>
              <td>{task.kind}</td>
              <td>{task.model}</td>
              {operator
                ? (
                  <td>
                    <a href={`/console/keys/${task.key_id}`}>{task.key_id}</a>
                  </td>
                )
                : null}
              <td>
                {task.status === "failed" ? <span class="bad">failed</span> : task.status}
              </td>
              <td>{task.progress}</td>
              <td>
                {task.cost === null ? <span class="muted">pending</span> : formatUnits(task.cost)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {tasks.length === 0 ? <p class="muted">No task matches.</p> : null}
    </div>
  );
}

function Filters({ url, operator }: { url: URL; operator: boolean }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  const option = (name: string, option: string, label: string) => (
    <option value={option} selected={value(name) === option}>{label}</option>
  );
  return (
    <form method="get" action="/console/tasks" class="card" role="search">
      <div class="fields">
        <div>
          <label for="kind">Kind</label>
          <select id="kind" name="kind">
            {option("kind", "", "Any")}
            {option("kind", "image", "Image")}
            {option("kind", "video", "Video")}
          </select>
        </div>
        <div>
          <label for="status">Status</label>
          <select id="status" name="status">
            {option("status", "", "Any")}
            {TASK_STATUSES.map((status) => option("status", status, status))}
          </select>
        </div>
        <div>
          <label for="model">Model</label>
          <input id="model" name="model" type="text" value={value("model")} />
        </div>
        {operator
          ? (
            <div>
              <label for="key">Key id</label>
              <input id="key" name="key" type="text" value={value("key")} placeholder="key_…" />
            </div>
          )
          : null}
        <RangeAndOrderFields url={url} />
      </div>
      <p>
        <button type="submit">Filter</button>
      </p>
    </form>
  );
}

async function tasksListPage(gateway: Gateway, c: ConsoleContext) {
  const role = c.get("session").role;
  const operator = role.kind === "operator";
  const url = withUtcTimes(c.get("url"));
  const options = listOptions(url);
  // A holder's list is the operator's narrowed to its key, whatever `key` the URL says.
  const filter = { ...taskFilter(url), ...(role.kind === "holder" ? { key: role.keyId } : {}) };
  const page = await listed(options, () => gateway.tasks.list(options, filter));
  const base = baseUrlOf(gateway, url);
  const curl = operator
    ? adminCurl(base, { method: "GET", path: `/admin/tasks${listQuery(url)}` })
    : `curl '${base}/v1/video/generations/TASK_ID' \\\n  -H "Authorization: Bearer $GATEWAY_KEY"`;
  return renderPage(
    c,
    <>
      <Filters url={c.get("url")} operator={operator} />
      <section class="card" aria-label="Tasks">
        <TaskRows tasks={page.data} operator={operator} />
        {page.cursor
          ? (
            <p>
              <a href={`/console/tasks${listQuery(url, page.cursor)}`} rel="next">
                Next page
              </a>
            </p>
          )
          : null}
      </section>
      <CopyAsCurl id="curl-list" curl={curl} />
    </>,
    { title: "Tasks", copyButtons: true },
  );
}

export function taskPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/tasks", (c) => tasksListPage(gateway, c));
  app.route("/", taskDetailPages(gateway));
  return app;
}
