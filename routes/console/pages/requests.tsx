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
import { ChannelName, KeyName, ModelName, type NameBook, nameBook } from "../name_links.tsx";
import {
  Datalists,
  PickerField,
  type PickerKind,
  type PickerLists,
  pickerLists,
  withPickedIds,
} from "../pickers.tsx";
import { ErrorText } from "../error_text.tsx";

type ListedRequest =
  & Pick<
    RequestLogEntry,
    | "id"
    | "at"
    | "model"
    | "key_id"
    | "status"
    | "latency_ms"
    | "cost"
    | "interface"
    | "input_tokens"
    | "output_tokens"
    | "error_code"
  >
  & Partial<Pick<RequestLogEntry, "channel_id" | "upstream_attempts">>;

/** The last failed upstream attempt's message, for the operator. */
function upstreamError(row: ListedRequest): string | undefined {
  return row.upstream_attempts?.findLast((attempt) => attempt.error)?.error;
}

/** The parameters of the operator's filters offered as pickers, and what each names. */
const PICKS: Record<string, PickerKind> = {
  key: "key",
  account: "account",
  channel: "channel",
  model: "model",
};

function RequestRows(
  { rows, operator, book, money }: {
    rows: ListedRequest[];
    operator: boolean;
    book: NameBook;
    money: ConsoleMoney;
  },
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
        {
          header: "Model",
          cell: (row) =>
            operator
              ? <ModelName id={row.model} book={book} />
              : row.model ?? <span class="muted">none</span>,
        },
        operator && { header: "Key", cell: (row) => <KeyName id={row.key_id} book={book} /> },
        operator && {
          header: "Channel",
          cell: (row) => <ChannelName id={row.channel_id} book={book} />,
        },
        { header: "Interface", cell: (row) => row.interface },
        {
          header: "Status",
          cell: (row) => row.status >= 400 ? <span class="bad">{row.status}</span> : row.status,
        },
        { header: "Tokens in / out", cell: (row) => `${row.input_tokens} / ${row.output_tokens}` },
        {
          header: "Error",
          cell: (row) => (
            <ErrorText
              code={row.error_code}
              message={operator && row.status >= 400 ? upstreamError(row) : undefined}
            />
          ),
        },
        { header: "Latency", cell: (row) => `${row.latency_ms} ms` },
        { header: "Cost", cell: (row) => money.amount(row.cost) },
      ]}
    />
  );
}

function Filters(
  { url, operator, lists }: { url: URL; operator: boolean; lists: PickerLists },
) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  return (
    <form method="get" action="/console/requests" class="card" role="search">
      <div class="fields">
        {operator
          ? (
            <>
              <PickerField kind="model" name="model" label="Model" value={value("model")} />
              <PickerField kind="key" name="key" label="Key" value={value("key")} />
              <PickerField
                kind="account"
                name="account"
                label="Account"
                value={value("account")}
              />
              <PickerField
                kind="channel"
                name="channel"
                label="Channel"
                value={value("channel")}
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
              <Datalists lists={lists} />
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
  const picked = await withPickedIds(gateway, url, PICKS);
  const filter = requestFilter(picked);
  const page = await listed(options, () => gateway.requestLog.list(options, filter));
  return { url: picked, data: page.data as ListedRequest[], page };
}

async function requestsListPage(gateway: Gateway, c: ConsoleContext) {
  const operator = c.get("session").role.kind === "operator";
  const { url, data, page } = await listedRequests(gateway, c);
  const book = operator
    ? await nameBook(gateway, { keys: data.map((row) => row.key_id) })
    : await nameBook(gateway);
  const lists = operator ? await pickerLists(gateway, ["key", "account", "channel", "model"]) : {};
  const base = baseUrlOf(gateway, url);
  const query = listQuery(url);
  const curl = operator
    ? adminCurl(base, { method: "GET", path: `/admin/requests${query}` })
    : `curl '${base}/v1/me/requests${query}' \\\n  -H "Authorization: Bearer $GATEWAY_KEY"`;
  return renderPage(
    c,
    <>
      <Filters url={c.get("url")} operator={operator} lists={lists} />
      <section class="card" aria-label="Requests">
        <RequestRows rows={data} operator={operator} book={book} money={c.get("money")} />
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
async function requestsExport(gateway: Gateway, c: ConsoleContext) {
  const url = await withPickedIds(gateway, withUtcTimes(c.get("url")), PICKS);
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
