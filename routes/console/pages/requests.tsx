/**
 * Requests: the operator's filtered list of the request log (the admin API's filters and paging,
 * with links to its CSV / JSON Lines export) and the key holder's list of its own requests (the
 * /v1/me service call: no channels, no upstream data). Each row links to the request's receipt.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import type { RequestLogEntry } from "../../../core/telemetry/request_log.ts";
import { interfaceNames } from "../../../core/formats/interfaces.ts";
import { exportStream, requestFilter } from "../../admin/requests.ts";
import { listed, listOptions } from "../../admin/shared.ts";
import { ownRequests, selfView } from "../../me.ts";
import { queryChoice } from "../../params.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { CopyAsCurl } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { withUtcTimes } from "../time_range.ts";
import { RangeAndOrderFields } from "../range_fields.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl, formatUnits } from "../snippets.ts";
import { requestDetailPages } from "./request_detail.tsx";

type ListedRequest = Pick<
  RequestLogEntry,
  "id" | "at" | "model" | "key_id" | "status" | "latency_ms" | "cost" | "interface"
>;

function RequestRows({ rows, operator }: { rows: ListedRequest[]; operator: boolean }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Time (UTC)</th>
            <th scope="col">Model</th>
            {operator ? <th scope="col">Key</th> : null}
            <th scope="col">Interface</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              <td>
                <a href={`/console/requests/${row.id}`}>{row.at.replace("T", " ").slice(0, 19)}</a>
              </td>
              <td>{row.model ?? <span class="muted">none</span>}</td>
              {operator
                ? (
                  <td>
                    {row.key_id
                      ? <a href={`/console/keys/${row.key_id}`}>{row.key_id}</a>
                      : <span class="muted">none</span>}
                  </td>
                )
                : null}
              <td>{row.interface}</td>
              <td>
                {row.status >= 400 ? <span class="bad">{row.status}</span> : row.status}
              </td>
              <td>{row.latency_ms} ms</td>
              <td>{formatUnits(row.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 ? <p class="muted">No request matches.</p> : null}
    </div>
  );
}

function Filters({ url, operator }: { url: URL; operator: boolean }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  const option = (name: string, option: string, label: string) => (
    <option value={option} selected={value(name) === option}>{label}</option>
  );
  const text = (name: string, label: string, hint?: string) => (
    <div>
      <label for={name}>{label}</label>
      <input
        id={name}
        name={name}
        type="text"
        value={value(name)}
        placeholder={hint}
      />
    </div>
  );
  return (
    <form method="get" action="/console/requests" class="card" role="search">
      <div class="fields">
        {operator ? text("model", "Model") : null}
        {operator ? text("key", "Key id", "key_…") : null}
        {operator ? text("channel", "Channel id", "ch_…") : null}
        {operator
          ? (
            <div>
              <label for="status">Status</label>
              <select id="status" name="status">
                {option("status", "", "Any")}
                {option("status", "2xx", "2xx success")}
                {option("status", "4xx", "4xx client error")}
                {option("status", "5xx", "5xx server error")}
              </select>
            </div>
          )
          : null}
        {operator
          ? (
            <div>
              <label for="interface">Interface</label>
              <select id="interface" name="interface">
                {option("interface", "", "Any")}
                {interfaceNames().map((name) => option("interface", name, name))}
              </select>
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
        <RequestRows rows={data} operator={operator} />
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
