/**
 * Tasks: image and video tasks with the admin API's filters (kind, status, model, key, time range)
 * and paging, showing status, progress and cost. The operator sees every key's; a key holder the
 * same list narrowed to its own key, without channels.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
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
import { adminCurl } from "../snippets.ts";
import { taskDetailPages } from "./task_detail.tsx";
import { shownProgress } from "../task_progress.ts";
import { ChannelName, KeyName, ModelName, type NameBook, nameBook } from "../name_links.tsx";
import {
  Datalists,
  PickerField,
  type PickerKind,
  type PickerLists,
  pickerLists,
  withPickedIds,
} from "../pickers.tsx";

function timeOf(unixSeconds: number | null): string {
  return unixSeconds === null ? "" : new Date(unixSeconds * 1000).toISOString().slice(0, 19)
    .replace("T", " ");
}

/** The parameters of the operator's filters offered as pickers, and what each names. */
const PICKS: Record<string, PickerKind> = { key: "key", model: "model" };

function TaskRows(
  { tasks, operator, book, money }: {
    tasks: TaskRecord[];
    operator: boolean;
    book: NameBook;
    money: ConsoleMoney;
  },
) {
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
        {
          header: "Model",
          cell: (task) => operator ? <ModelName id={task.model} book={book} /> : task.model,
        },
        operator && { header: "Key", cell: (task) => <KeyName id={task.key_id} book={book} /> },
        operator && {
          header: "Channel",
          cell: (task) => <ChannelName id={task.channel_id} book={book} />,
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
            task.cost === null ? <span class="muted">pending</span> : money.amount(task.cost),
        },
      ]}
    />
  );
}

function Filters(
  { url, operator, lists }: { url: URL; operator: boolean; lists: PickerLists },
) {
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
        {operator
          ? (
            <>
              <PickerField kind="model" name="model" label="Model" value={value("model")} />
              <PickerField kind="key" name="key" label="Key" value={value("key")} />
              <Datalists lists={lists} />
            </>
          )
          : <Field name="model" label="Model" value={value("model")} />}
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
  const url = operator
    ? await withPickedIds(gateway, withUtcTimes(c.get("url")), PICKS)
    : withUtcTimes(c.get("url"));
  const options = listOptions(url);
  // A holder's list is the operator's narrowed to its key, whatever `key` the URL says.
  const filter = { ...taskFilter(url), ...(role.kind === "holder" ? { key: role.keyId } : {}) };
  const page = await listed(options, () => gateway.tasks.list(options, filter));
  const book = await nameBook(gateway, { keys: operator ? page.data.map((t) => t.key_id) : [] });
  const lists = operator ? await pickerLists(gateway, ["key", "model"]) : {};
  const base = baseUrlOf(gateway, url);
  const curl = operator
    ? adminCurl(base, { method: "GET", path: `/admin/tasks${listQuery(url)}` })
    : `curl '${base}/v1/video/generations/TASK_ID' \\\n  -H "Authorization: Bearer $GATEWAY_KEY"`;
  return renderPage(
    c,
    <>
      <Filters url={c.get("url")} operator={operator} lists={lists} />
      <section class="card" aria-label="Tasks">
        <TaskRows tasks={page.data} operator={operator} book={book} money={c.get("money")} />
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
