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
import { CopyAsCurl } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { listQuery } from "../list_query.ts";

function AuditRows({ records }: { records: AuditRecord[] }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">When (UTC)</th>
            <th scope="col">Actor</th>
            <th scope="col">Change</th>
            <th scope="col">Target</th>
            <th scope="col">Status</th>
            <th scope="col">Before / after</th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr>
              <td>{record.at}</td>
              <td>
                <code>{record.actor}</code>
              </td>
              <td>
                <code>{record.method} {record.route}</code>
              </td>
              <td>
                {record.target.kind} <code>{record.target.id ?? "—"}</code>
              </td>
              <td class={record.status < 400 ? "ok" : "bad"}>
                {record.status}
                {record.error_code ? ` ${record.error_code}` : ""}
              </td>
              <td>
                <details>
                  <summary>Show</summary>
                  <pre>{JSON.stringify({ before: record.before, after: record.after }, null, 2)}</pre>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {records.length === 0 ? <p class="muted">No change matches.</p> : null}
    </div>
  );
}

function Filters({ url }: { url: URL }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  const field = (name: string, label: string, hint?: string) => (
    <div>
      <label for={name}>{label}</label>
      <input
        id={name}
        name={name}
        type="search"
        value={value(name)}
        aria-describedby={hint ? `${name}-hint` : undefined}
      />
      {hint ? <small id={`${name}-hint`} class="muted">{hint}</small> : null}
    </div>
  );
  return (
    <form method="get" action="/console/audit" class="row card" role="search">
      {field("actor", "Actor", "admin_token, console, config, or one of them exactly")}
      {field("target_kind", "Target kind", "key, channel, model, …")}
      {field("target_id", "Target id")}
      {field("since", "Since (UTC)", "e.g. 2026-11-24T10:00:00Z")}
      {field("until", "Until (UTC)")}
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
