/**
 * Requests: the operator's filtered list of the request log (the admin API's filters and paging,
 * with links to its CSV / JSON Lines export) and the key holder's list of its own requests (the
 * /v1/me service call: no channels, no upstream data). Each row links to the request's receipt.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import type { Gateway } from "../../../core/gateway.ts";
import type { RequestLogEntry } from "../../../core/telemetry/request_log.ts";
import { interfaceNames } from "../../../core/formats/interfaces.ts";
import { exportStream, requestFilter } from "../../admin/requests.ts";
import { listed, listOptions } from "../../admin/shared.ts";
import { ownRequests, selfView } from "../../me.ts";
import { queryChoice } from "../../params.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { CopyAsCurl } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { withUtcTimes } from "../time_range.ts";
import { RangeAndOrderFields } from "../range_fields.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { requestDetailPages } from "./request_detail.tsx";

type ListedRequest = Pick<
  RequestLogEntry,
  "id" | "at" | "model" | "key_id" | "status" | "latency_ms" | "cost" | "interface"
>;

function RequestRows(
  { rows, operator, money }: { rows: ListedRequest[]; operator: boolean; money: ConsoleMoney },
) {
  return (
    <DataTable
      rows={rows}
      empty="No request matches."
      columns={[
        {
          header: "Time (UTC)",
          cell: (row) => (
            <a href={`/console/requests/${row.id}`}>{row.at.replace("T", " ").slice(0, 19)}</a>
          ),
        },
        { header: "Model", cell: (row) => row.model ?? <span class="muted">none</span> },
        operator && {
          header: "Key",
          cell: (row) =>
            row.key_id
              ? <a href={`/console/keys/${row.key_id}`}>{row.key_id}</a>
              : <span class="muted">none</span>,
        },
        { header: "Interface", cell: (row) => row.interface },
        {
          header: "Status",
          cell: (row) => row.status >= 400 ? <span class="bad">{row.status}</span> : row.status,
        },
        { header: "Latency", cell: (row) => `${row.latency_ms} ms` },
        { header: "Cost", cell: (row) => money.amount(row.cost) },
      ]}
    />
  );
}

function Filters({ url, operator }: { url: URL; operator: boolean }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  return (
    <form method="get" action="/console/requests" class="card" role="search">
      <div class="fields">
        {operator
          ? (
            <>
              <Field name="model" label="Model" value={value("model")} />
              <Field name="key" label="Key id" value={value("key")} placeholder="key_…" />
              <Field
                name="channel"
                label="Channel id"
                value={value("channel")}
                placeholder="ch_…"
              />
              <Field
                name="status"
                label="Status"
                value={value("status")}
                options={[
                  ["", "Any"],
                  ["2xx", "2xx success"],
                  ["4xx", "4xx client error"],
                  ["5xx", "5xx server error"],
                ]}
              />
              <Field
                name="interface"
                label="Interface"
                value={value("interface")}
                options={[["", "Any"], ...interfaceNames().map((name) => [name, name] as const)]}
              />
            </>
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

/** The page of the list, from the operator's filters or the holder's own records. */
async function listedRequests(gateway: Gateway, c: ConsoleContext) {
  const url = withUtcTimes(c.get("url"));
  const role = c.get("session").role;
  const options = listOptions(url);
  if (role.kind === "holder") {
    const page = await listed(options, () => ownRequests(gateway, role.keyId, options));
    return { url, data: page.data.map((entry) => selfView(entry) as ListedRequest), page };
  }
  const filter = requestFilter(url);
  const page = await listed(options, () => gateway.requestLog.list(options, filter));
  return { url, data: page.data as ListedRequest[], page };
}

async function requestsListPage(gateway: Gateway, c: ConsoleContext) {
  const operator = c.get("session").role.kind === "operator";
  const { url, data, page } = await listedRequests(gateway, c);
  const base = baseUrlOf(gateway, url);
  const query = listQuery(url);
  const curl = operator
    ? adminCurl(base, { method: "GET", path: `/admin/requests${query}` })
    : `curl '${base}/v1/me/requests${query}' \\\n  -H "Authorization: Bearer $GATEWAY_KEY"`;
  return renderPage(
    c,
    <>
      <Filters url={c.get("url")} operator={operator} />
      <section class="card" aria-label="Requests">
        <RequestRows rows={data} operator={operator} money={c.get("money")} />
        {page.cursor
          ? (
            <p>
              <a href={`/console/requests${listQuery(url, page.cursor)}`} rel="next">
                Next page
              </a>
            </p>
          )
          : null}
        {operator
          ? (
            <p>
              Export this list:{" "}
              <a href={exportHref(url, "jsonl")}>
                JSON Lines
              </a>{" "}
              · <a href={exportHref(url, "csv")}>CSV</a>
            </p>
          )
          : null}
      </section>
      <CopyAsCurl id="curl-list" curl={curl} />
    </>,
    { title: "Requests", copyButtons: true },
  );
}

/** The export of the list `url` filters, in `format`. */
function exportHref(url: URL, format: "csv" | "jsonl"): string {
  const filtered = new URL(url);
  filtered.searchParams.set("format", format);
  return `/console/requests/export${listQuery(filtered)}`;
}

/** The admin export's stream of the filtered list, downloaded with the console session. */
function requestsExport(gateway: Gateway, c: ConsoleContext) {
  const url = withUtcTimes(c.get("url"));
  const format = queryChoice(url, "format", { allowed: ["csv", "jsonl"], fallback: "jsonl" })!;
  const { cursor: _ignored, ...options } = listOptions(url);
  const filter = requestFilter(url);
  return new Response(exportStream(gateway, { options, filter, format }), {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
      "content-disposition": `attachment; filename="requests.${format}"`,
    },
  });
}

export function requestPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/requests", (c) => requestsListPage(gateway, c));
  app.get("/console/requests/export", requireOperator(), (c) => requestsExport(gateway, c));
  app.route("/", requestDetailPages(gateway));
  return app;
}
