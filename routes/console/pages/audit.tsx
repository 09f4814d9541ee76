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
import { queryValue } from "../../params.ts";
import {
  AccountName,
  ChannelName,
  KeyName,
  ModelName,
  type NameBook,
  nameBook,
} from "../name_links.tsx";
import {
  anyIdNamed,
  type Choice,
  Datalists,
  pickedId,
  PickerField,
  type PickerLists,
  pickerLists,
} from "../pickers.tsx";

/** Where a target of each kind has its page; other kinds show their id. */
const TARGET_PAGES: Record<string, (id: string) => string> = {
  webhook: (id) => `/console/webhooks/${encodeURIComponent(id)}`,
  group: (id) => `/console/groups/${encodeURIComponent(id)}`,
  redemption_batch: (id) => `/console/redemption-codes/${encodeURIComponent(id)}`,
};

/** A change's target: a key, account, channel or model by name; others by id, linked. */
function TargetName({ target, book }: { target: AuditRecord["target"]; book: NameBook }) {
  const { kind, id } = target;
  if (id === null) return <>{kind}</>;
  const named = kind === "key"
    ? <KeyName id={id} book={book} />
    : kind === "account"
    ? <AccountName id={id} book={book} />
    : kind === "channel"
    ? <ChannelName id={id} book={book} />
    : kind === "model"
    ? <ModelName id={id} book={book} />
    : TARGET_PAGES[kind]
    ? (
      <a href={TARGET_PAGES[kind](id)}>
        <code>{id}</code>
      </a>
    )
    : <code>{id}</code>;
  return <>{kind} {named}</>;
}

function AuditRows({ records, book }: { records: AuditRecord[]; book: NameBook }) {
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
          cell: (record) => <TargetName target={record.target} book={book} />,
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

function Filters({ url, lists }: { url: URL; lists: PickerLists }) {
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
      <PickerField
        list="target"
        name="target_id"
        label="Target"
        value={value("target_id")}
        hint="a key's, account's or channel's name, or any target's id"
      />
      <Datalists lists={lists} />
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
  const url = await withTargetId(gateway, c.get("url"));
  const options = listOptions(url);
  const filter = auditFilter(url);
  const page = await listed(options, () => gateway.audit.list(options, filter));
  const idsOf = (kind: string) =>
    page.data.flatMap((record) => record.target.kind === kind ? [record.target.id] : []);
  const book = await nameBook(gateway, { keys: idsOf("key"), accounts: idsOf("account") });
  const picks = await pickerLists(gateway, ["key", "account", "channel"]);
  const target = [
    ...(picks.key ?? []).map(([value, label]): Choice => [value, `key ${label}`]),
    ...(picks.account ?? []).map(([value, label]): Choice => [value, `account ${label}`]),
    ...(picks.channel ?? []).map(([value, label]): Choice => [value, `channel ${label}`]),
  ];
  return renderPage(
    c,
    <>
      <Filters url={c.get("url")} lists={{ target }} />
      <section class="card" aria-label="Changes">
        <AuditRows records={page.data} book={book} />
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

/**
 * `url` with its `target_id` read as an id: by `target_kind`'s names when it is a key, account or
 * channel; with no kind, the one key, account or channel of that name; else as given.
 */
async function withTargetId(gateway: Gateway, url: URL): Promise<URL> {
  const value = queryValue(url, "target_id")?.trim();
  if (!value) return url;
  const kind = queryValue(url, "target_kind")?.trim();
  const resolved = new URL(url);
  if (kind === "key" || kind === "account" || kind === "channel") {
    resolved.searchParams.set(
      "target_id",
      await pickedId(gateway, { kind, param: "target_id", value }),
    );
    return resolved;
  }
  if (kind) return url;
  const id = await anyIdNamed(gateway, { param: "target_id", value });
  if (id) resolved.searchParams.set("target_id", id);
  return resolved;
}

export function auditPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/audit", requireOperator(), (c) => auditPage(gateway, c));
  return app;
}
