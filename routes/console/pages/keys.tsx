/**
 * Operator's keys: the list (name prefix, group and enabled filters, sort, paging through the
 * admin API's own query reader), the New key form, and the page that shows a new key's secret
 * once. Every read and change goes through the same service calls as /admin/keys.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { keyInputSchema } from "../../../core/keys/key_schema.ts";
import { GatewayError } from "../../../core/errors.ts";
import { keyListQuery, refuseAccountFields } from "../../admin/keys.ts";
import { listed } from "../../admin/shared.ts";
import { hasIdShape } from "../../params.ts";
import { validate } from "../../validation.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { readForm } from "../form_body.ts";
import { IP_ALLOWLIST_HINT, keyInputOf } from "../key_form.ts";
import { DataTable } from "../data_table.tsx";
import { Field, type FieldOption } from "../field.tsx";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { renderPage } from "../render.tsx";
import { SecretOnce } from "../secret_once.tsx";
import { AccountName, type NameBook, nameBook } from "../name_links.tsx";
import { adminCurl } from "../snippets.ts";
import type { ConsoleMoney } from "../money.tsx";

type KeyView = Awaited<ReturnType<Gateway["keys"]["get"]>>;

function KeyRows(
  { keys, book, money }: { keys: KeyView[]; book: NameBook; money: ConsoleMoney },
) {
  return (
    <DataTable
      rows={keys}
      empty="No key matches."
      columns={[
        { header: "Name", cell: (key) => <a href={`/console/keys/${key.id}`}>{key.name}</a> },
        { header: "Prefix", cell: (key) => <code>{key.prefix}…</code> },
        { header: "Account", cell: (key) => <AccountName id={key.account_id} book={book} /> },
        { header: "Group", cell: (key) => key.group },
        { header: "Balance", cell: (key) => money.amount(key.balance) },
        { header: "Spent today", cell: (key) => money.amount(key.spend_today) },
        {
          header: "State",
          cell: (key) => key.enabled ? "enabled" : <span class="bad">disabled</span>,
        },
        { header: "Expires", cell: (key) => key.expires_at ?? "never" },
      ]}
    />
  );
}

function Filters({ url }: { url: URL }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  return (
    <form method="get" action="/console/keys" class="row card" role="search">
      <Field
        name="name_prefix"
        label="Name starts with"
        type="search"
        value={value("name_prefix")}
      />
      <Field name="group" label="Group" value={value("group")} />
      <Field
        name="enabled"
        label="State"
        value={value("enabled")}
        options={[["", "Any"], ["true", "Enabled"], ["false", "Disabled"]]}
      />
      <Field
        name="sort"
        label="Sort by"
        value={value("sort")}
        options={[["created", "Created"], ["spend", "Spent today"], ["last_used", "Last used"]]}
      />
      <Field
        name="order"
        label="Order"
        value={value("order")}
        options={[["desc", "Newest / highest first"], ["asc", "Oldest / lowest first"]]}
      />
      <div>
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}

async function keysListPage(gateway: Gateway, c: ConsoleContext) {
  const url = c.get("url");
  const query = keyListQuery(url);
  const page = await listed(query, () => gateway.keys.list(query));
  const book = await nameBook(gateway, { accounts: page.data.map((key) => key.account_id) });
  const base = baseUrlOf(gateway, url);
  return renderPage(
    c,
    <>
      <p>
        <a class="button" href="/console/keys/new">New key</a>
      </p>
      <Filters url={url} />
      <section class="card" aria-label="Keys">
        <KeyRows keys={page.data} book={book} money={c.get("money")} />
        {page.cursor
          ? (
            <p>
              <a href={`/console/keys${listQuery(url, page.cursor)}`} rel="next">Next page</a>
            </p>
          )
          : null}
      </section>
      <CopyAsCurl
        id="curl-list"
        curl={adminCurl(base, { method: "GET", path: `/admin/keys${listQuery(url)}` })}
      />
    </>,
    { title: "Keys", copyButtons: true },
  );
}

/** The Account select's choices: an account of its own (the default), then each by name. */
async function accountChoices(gateway: Gateway): Promise<FieldOption[]> {
  const { data } = await gateway.accounts.list({ sort: "name", limit: 1000 });
  return [
    ["", "A new account of its own"],
    ...data.map((account): FieldOption => [account.id, `${account.name} (${account.id})`]),
  ];
}

function NewKeyForm(
  { c, fields, problem, accounts }: {
    c: ConsoleContext;
    fields: Record<string, string>;
    problem?: string;
    accounts: FieldOption[];
  },
) {
  const field = (name: string, label: string, type = "text", hint?: string, rows?: number) => (
    <Field
      name={name}
      label={label}
      type={type}
      value={fields[name] ?? ""}
      hint={hint}
      rows={rows}
      required={name === "name"}
    />
  );
  const currency = c.get("money").format.currency;
  return (
    <form method="post" action="/console/keys" class="card">
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <CsrfField session={c.get("session")} />
      <div class="fields">
        {field("name", "Name")}
        <Field
          name="account_id"
          label="Account"
          value={fields.account_id ?? ""}
          options={accounts}
          hint="whose wallet the key pays from; a chosen account gives it its group and balance"
        />
        {field(
          "balance",
          `Balance (${currency})`,
          "text",
          "e.g. 10.00; only for an account of its own",
        )}
        {field("group", "Group", "text", "default when empty; only for an account of its own")}
        {field("models", "Models", "text", "comma-separated; empty allows all of the group")}
        {field("ip_allowlist", "IP allowlist", "text", IP_ALLOWLIST_HINT, 3)}
        {field("expires_at", "Expires (UTC)", "datetime-local")}
        {field("rpm", "Requests per minute (RPM)", "number")}
        {field("tpm", "Tokens per minute (TPM)", "number")}
        {field("cap_day", `Spend cap per day (${currency})`, "text", "e.g. 5.00; empty: none")}
        {field("cap_week", `Spend cap per week (${currency})`)}
        {field("cap_month", `Spend cap per month (${currency})`)}
      </div>
      <p>
        <button type="submit">Create</button>
      </p>
    </form>
  );
}

async function newKeyPage(
  c: ConsoleContext,
  options: { gateway: Gateway; fields?: Record<string, string>; problem?: string },
) {
  const fields = options.fields ?? {};
  const body = keyInputOf(fields);
  const accounts = await accountChoices(options.gateway);
  return renderPage(
    c,
    <>
      <NewKeyForm c={c} fields={fields} problem={options.problem} accounts={accounts} />
      <CopyAsCurl
        id="curl-create"
        curl={adminCurl(baseUrlOf(options.gateway, c.get("url")), {
          method: "POST",
          path: "/admin/keys",
          body: body.name ? body : {
            name: "my key",
            ...(body.account_id ? { account_id: body.account_id } : { balance: 1_000_000 }),
          },
        })}
      />
    </>,
    { title: "New key", status: options.problem ? 400 : 200, copyButtons: true },
  );
}

async function createKey(gateway: Gateway, c: ConsoleContext) {
  const fields = await readForm(c);
  const { csrf: _csrf, ...shown } = fields;
  let created;
  try {
    const body = keyInputOf(fields);
    const input = validate(keyInputSchema, body);
    if (input.account_id) refuseAccountFields(body);
    created = await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/keys",
        method: "POST",
        target: { kind: "key", id: null },
        readTarget: (id) => gateway.keys.get(id),
        apply: () => gateway.keys.create(input),
        outcomeOf: (result) => ({ status: 201, createdId: result.id }),
      },
    });
  } catch (error) {
    if (error instanceof GatewayError && error.status === 400) {
      return newKeyPage(c, { gateway, fields: shown, problem: error.message });
    }
    throw error;
  }
  await gateway.consoleSessions.putFlash(
    c.get("session").id,
    { owner: created.id, secret: created.key },
  );
  return c.redirect(`/console/keys/${created.id}/created`, 303);
}

/** The new key's secret, taken from the session's flash: shown on the first view only. */
async function createdPage(gateway: Gateway, c: ConsoleContext, id: string) {
  const secret = await gateway.consoleSessions.takeFlash(c.get("session").id, id);
  return renderPage(
    c,
    <SecretOnce
      secret={secret}
      heading="The key's new secret"
      keep="only its hash"
      again="Rotate the key to get a new one."
      back={{ href: `/console/keys/${id}`, label: "Go to the key" }}
    />,
    { title: "Key secret", copyButtons: Boolean(secret) },
  );
}

export function keyPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/keys", (c) => keysListPage(gateway, c));
  app.get("/console/keys/new", (c) => {
    // "New key in this account" on an account's page preselects it.
    const accountId = c.get("url").searchParams.get("account_id") ?? "";
    return newKeyPage(c, { gateway, fields: accountId ? { account_id: accountId } : {} });
  });
  app.post("/console/keys", (c) => createKey(gateway, c));
  app.get("/console/keys/:id/created", (c) => {
    const id = c.req.param("id");
    if (!hasIdShape(id, "key")) throw new GatewayError("key_not_found", 404, "No such key");
    return createdPage(gateway, c, id);
  });
  return app;
}
