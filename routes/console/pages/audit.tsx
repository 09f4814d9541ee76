/**
 * Operator's audit log: every change made through the admin API, the console and the config
 * file, newest first, with the admin API's own filters (actor, target kind and id, since/until)
 * and paging.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import type { AuditRecord } from "../../../core/audit/audit_log.ts";
import { auditFilter } from "../../admin/audit.ts";
import { listed, listOptions } from "../../admin/shared.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { CopyAsCurl } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { listQuery } from "../list_query.ts";

function AuditRows({ records }: { records: AuditRecord[] }) {
  return (
    <DataTable
      rows={records}
      empty="No change matches."
      columns={[
        { header: "When (UTC)", cell: (record) => record.at },
        { header: "Actor", cell: (record) => <code>{record.actor}</code> },
        {
          header: "Change",
          cell: (record) => <code>{record.method} {record.route}</code>,
        },
        {
          header: "Target",
          cell: (record) => (
            <>
              {record.target.kind} <code>{record.target.id ?? "—"}</code>
            </>
          ),
        },
        {
          header: "Status",
          cell: (record) => (
            <>
              {record.status}
              {record.error_code ? ` ${record.error_code}` : ""}
            </>
          ),
          cellClass: (record) => record.status < 400 ? "ok" : "bad",
        },
        {
          header: "Before / after",
          cell: (record) => (
            <details>
              <summary>Show</summary>
              <pre>{JSON.stringify({ before: record.before, after: record.after }, null, 2)}</pre>
            </details>
          ),
        },
      ]}
    />
  );
}

function Filters({ url }: { url: URL }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  return (
    <form method="get" action="/console/audit" class="row card" role="search">
      <Field
        name="actor"
        label="Actor"
        type="search"
        value={value("actor")}
        hint="admin_token, console, config, or one of them exactly"
      />
      <Field
        name="target_kind"
        label="Target kind"
        type="search"
        value={value("target_kind")}
        hint="key, channel, model, …"
      />
      <Field name="target_id" label="Target id" type="search" value={value("target_id")} />
      <Field
        name="since"
        label="Since (UTC)"
        type="search"
        value={value("since")}
        hint="e.g. 2026-11-24T10:00:00Z"
      />
      <Field name="until" label="Until (UTC)" type="search" value={value("until")} />
      <div>
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}

async function auditPage(gateway: Gateway, c: ConsoleContext) {
  const url = c.get("url");
  const options = listOptions(url);
  const filter = auditFilter(url);
  const page = await listed(options, () => gateway.audit.list(options, filter));
  return renderPage(
    c,
    <>
      <Filters url={url} />
      <section class="card" aria-label="Changes">
        <AuditRows records={page.data} />
        {page.cursor
          ? (
            <p>
              <a href={`/console/audit${listQuery(url, page.cursor)}`} rel="next">Next page</a>
            </p>
          )
          : null}
      </section>
      <CopyAsCurl
        id="curl-list"
        curl={adminCurl(baseUrlOf(gateway, url), {
          method: "GET",
          path: `/admin/audit${listQuery(url)}`,
        })}
      />
    </>,
    { title: "Audit", copyButtons: true },
  );
}

export function auditPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/audit", requireOperator(), (c) => auditPage(gateway, c));
  return app;
}
