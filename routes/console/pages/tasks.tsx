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
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { CopyAsCurl } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { withUtcTimes } from "../time_range.ts";
import { RangeAndOrderFields } from "../range_fields.tsx";
import { renderPage } from "../render.tsx";
import { adminCurl, formatUnits } from "../snippets.ts";
import { taskDetailPages } from "./task_detail.tsx";
import { shownProgress } from "../task_progress.ts";

function timeOf(unixSeconds: number | null): string {
  return unixSeconds === null ? "" : new Date(unixSeconds * 1000).toISOString().slice(0, 19)
    .replace("T", " ");
}

function TaskRows({ tasks, operator }: { tasks: TaskRecord[]; operator: boolean }) {
  return (
    <DataTable
      rows={tasks}
      empty="No task matches."
      columns={[
        {
          header: "Submitted (UTC)",
          cell: (task) => <a href={`/console/tasks/${task.id}`}>{timeOf(task.submit_time)}</a>,
        },
        { header: "Kind", cell: (task) => task.kind },
        { header: "Model", cell: (task) => task.model },
        operator && {
          header: "Key",
          cell: (task) => <a href={`/console/keys/${task.key_id}`}>{task.key_id}</a>,
        },
        {
          header: "Status",
          cell: (task) => (
            <>
              {task.status === "failed" ? <span class="bad">failed</span> : task.status}
              {operator && task.submission_unknown?.needs_operator
                ? (
                  <>
                    {" "}
                    <span class="bad">· held for the operator</span>
                  </>
                )
                : null}
            </>
          ),
        },
        {
          header: "Progress",
          cell: (task) => shownProgress(task) ?? <span class="muted">–</span>,
        },
        {
          header: "Cost",
          cell: (task) =>
            task.cost === null ? <span class="muted">pending</span> : formatUnits(task.cost),
        },
      ]}
    />
  );
}

function Filters({ url, operator }: { url: URL; operator: boolean }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  return (
    <form method="get" action="/console/tasks" class="card" role="search">
      <div class="fields">
        <Field
          name="kind"
          label="Kind"
          value={value("kind")}
          options={[["", "Any"], ["image", "Image"], ["video", "Video"]]}
        />
        <Field
          name="status"
          label="Status"
          value={value("status")}
          options={[["", "Any"], ...TASK_STATUSES.map((status) => [status, status] as const)]}
        />
        <Field name="model" label="Model" value={value("model")} />
        {operator
          ? <Field name="key" label="Key id" value={value("key")} placeholder="key_…" />
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
