/**
 * The account's usage for members: its requests (filtered by key and time range, paged, each
 * with its receipt on its own page), its tasks, and the export of the filtered requests as CSV or
 * JSON Lines. Members see no channel and no upstream data.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import { AccountArea } from "../../../core/account_area/account_area.ts";
import type { AccountActor } from "../../../core/account_area/actor.ts";
import { memberRequestExport } from "../../../core/account_area/member_request_export.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import type { ListOptions } from "../../../core/kv/list_options.ts";
import type { RequestLogEntry } from "../../../core/telemetry/request_log_entry.ts";
import type { ConsoleContext, ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { formProblemOf } from "../form_problem.ts";
import { listQuery } from "../list_query.ts";
import { accountActorOf } from "../member_actor.ts";
import { type MemberRequest, RequestRows } from "../member_request_rows.tsx";
import { RangeAndOrderFields } from "../range_fields.tsx";
import { renderPage } from "../render.tsx";
import { withUtcTimes } from "../time_range.ts";
import { Facts, ReceiptView } from "./request_detail.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

type MemberTask = Awaited<ReturnType<AccountArea["tasks"]>>["data"][number];

const REQUEST_ID = /^req_[0-9A-Za-z]{1,64}$/;

/** The filters of the usage page and its export, read from the query; a bad one is a 400. */
export function usageFilterOf(url: URL): {
  range: Pick<ListOptions, "since" | "until" | "order">;
  key?: string;
} {
  const query = withUtcTimes(url).searchParams;
  const time = (name: "since" | "until") => {
    const value = query.get(name)?.trim();
    if (!value) return undefined;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) {
      throw new GatewayError(
        "invalid_request",
        400,
        `${name} must be a time, not '${value.slice(0, 40)}'`,
        {
          param: name,
        },
      );
    }
    return ms;
  };
  const since = time("since");
  const until = time("until");
  if (since !== undefined && until !== undefined && since > until) {
    throw new GatewayError("invalid_request", 400, "From must be before To", { param: "since" });
  }
  const key = query.get("key")?.trim() || undefined;
  const order = query.get("order") === "asc" ? "asc" : "desc";
  return { range: { since, until, order }, ...(key && { key }) };
}

function TaskRows({ rows, money }: { rows: MemberTask[]; money: ConsoleMoney }) {
  return (
    <DataTable
      rows={rows}
      empty="No task in this range."
      columns={[
        { header: "Task", cell: (task) => <code>{task.id}</code> },
        { header: "Kind", cell: (task) => task.kind },
        { header: "Model", cell: (task) => task.model },
        { header: "Status", cell: (task) => task.status },
        { header: "Progress", cell: (task) => task.progress },
        { header: "Submitted", cell: (task) => task.submit_time },
        { header: "Cost", cell: (task) => task.cost === null ? "" : money.amount(task.cost) },
      ]}
    />
  );
}

function Filters(
  { url, keys }: { url: URL; keys: Array<{ id: string; name: string }> },
) {
  return (
    <form method="get" action="/console/account/usage" class="row card" role="search">
      <Field
        name="key"
        label="Key"
        value={url.searchParams.get("key") ?? ""}
        options={[["", "Every key"], ...keys.map((key) => [key.id, key.name] as const)]}
      />
      <RangeAndOrderFields url={url} />
      <div>
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}

export function memberUsagePages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const area = new AccountArea(gateway);

  async function usagePage(c: ConsoleContext, actor: AccountActor) {
    const url = c.get("url");
    const keys = await area.keys(actor);
    const keyNames = new Map(keys.map((key) => [key.id, key.name]));
    let problem: { message: string; status: ContentfulStatusCode } | undefined;
    let requests: { data: MemberRequest[]; cursor: string | null } = { data: [], cursor: null };
    let tasks: MemberTask[] = [];
    try {
      const filter = usageFilterOf(url);
      const cursor = url.searchParams.get("cursor") || undefined;
      requests = await area.requests(
        actor,
        { ...filter.range, limit: 50, cursor },
        filter.key ? { key: filter.key } : {},
      );
      tasks = (await area.tasks(
        actor,
        { ...filter.range, limit: 20 },
        filter.key ? { key: filter.key } : {},
      )).data;
    } catch (error) {
      const refused = formProblemOf(error);
      if (refused.status === 404 || refused.status === 403) throw error;
      problem = refused;
    }
    const exportQuery = (format: string) => {
      const params = new URLSearchParams(listQuery(url).slice(1));
      params.set("format", format);
      return `/console/account/usage/export?${params}`;
    };
    return renderPage(
      c,
      <>
        {problem ? <p class="error" role="alert">{problem.message}</p> : null}
        <Filters url={url} keys={keys} />
        <section class="card" aria-labelledby="requests-heading">
          <h2 id="requests-heading">Requests</h2>
          <p>
            Download these requests (every page): <a href={exportQuery("csv")} download>CSV</a> ·
            {" "}
            <a href={exportQuery("jsonl")} download>JSON Lines</a>
          </p>
          <RequestRows rows={requests.data} keyNames={keyNames} money={c.get("money")} />
          {requests.cursor
            ? (
              <p>
                <a href={`/console/account/usage${listQuery(url, requests.cursor)}`} rel="next">
                  Next page
                </a>
              </p>
            )
            : null}
        </section>
        <section class="card" aria-labelledby="tasks-heading">
          <h2 id="tasks-heading">Tasks</h2>
          <TaskRows rows={tasks} money={c.get("money")} />
        </section>
      </>,
      { title: "Usage", status: problem?.status },
    );
  }

  app.get("/console/account/usage", async (c) => usagePage(c, await accountActorOf(gateway, c)));
  app.get("/console/account/usage/export", async (c) => {
    const actor = await accountActorOf(gateway, c);
    const url = c.get("url");
    const format = url.searchParams.get("format") === "csv" ? "csv" : "jsonl";
    let filter;
    try {
      filter = usageFilterOf(url);
      // Checked before the download starts, so a key of another account is a 404 page.
      if (filter.key) await area.requests(actor, { limit: 1, order: "desc" }, { key: filter.key });
    } catch (error) {
      if (formProblemOf(error).status === 400) return await usagePage(c, actor);
      throw error;
    }
    const stream = memberRequestExport(area, actor, { ...filter, format });
    return new Response(stream, {
      headers: {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
        "content-disposition": `attachment; filename="requests.${format}"`,
      },
    });
  });
  app.get("/console/account/requests/:id", async (c) => {
    const actor = await accountActorOf(gateway, c);
    const id = c.req.param("id");
    if (!REQUEST_ID.test(id)) {
      throw new GatewayError("request_not_found", 404, "No request of this account has this id");
    }
    const record = await area.request(actor, id) as Partial<RequestLogEntry>;
    return renderPage(
      c,
      <>
        <p>
          <a href="/console/account/usage">All requests</a>
        </p>
        <Facts record={record} money={c.get("money")} />
        {record.receipt
          ? <ReceiptView receipt={record.receipt} money={c.get("money")} />
          : <p class="card muted">This request has no receipt: nothing was billed.</p>}
      </>,
      { title: "Request" },
    );
  });
  return app;
}
