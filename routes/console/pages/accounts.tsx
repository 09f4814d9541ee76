/**
 * Operator's accounts: the list (search by name or id, group and state filters, sort by created,
 * name, balance, spend today or last use, paging through the admin API's own query reader) and
 * the New account form. Every read and change goes through the same service calls as
 * /admin/accounts, and a change is audited as that route's.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import type { PublicAccount } from "../../../core/accounts/account_schema.ts";
import { accountInputSchema } from "../../../core/accounts/account_schema.ts";
import { GatewayError } from "../../../core/errors.ts";
import { accountListQuery } from "../../admin/accounts.ts";
import { validate } from "../../validation.ts";
import { accountInputOf } from "../account_form.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { renderPage } from "../render.tsx";
import { adminCurl } from "../snippets.ts";
import type { ConsoleMoney } from "../money.tsx";

/** The wallet's floor as a reader says it: how far below zero it may go. */
function floorOf(
  account: Pick<PublicAccount, "unlimited" | "credit_limit">,
  money: ConsoleMoney,
) {
  return account.unlimited ? "unlimited" : money.amount(-account.credit_limit);
}

function AccountRows({ accounts, money }: { accounts: PublicAccount[]; money: ConsoleMoney }) {
  return (
    <DataTable
      rows={accounts}
      empty="No account matches."
      columns={[
        {
          header: "Name",
          cell: (account) => <a href={`/console/accounts/${account.id}`}>{account.name}</a>,
        },
        { header: "Id", cell: (account) => <code>{account.id}</code> },
        { header: "Group", cell: (account) => account.group },
        {
          header: "Balance",
          cell: (account) => money.amount(account.balance),
          cellClass: (account) => account.balance < 0 ? "bad" : undefined,
        },
        { header: "Floor", cell: (account) => floorOf(account, money) },
        { header: "Spent today", cell: (account) => money.amount(account.spend_today) },
        { header: "Keys", cell: (account) => account.keys },
        { header: "Last used", cell: (account) => account.last_used_at ?? "never" },
        {
          header: "State",
          cell: (account) => account.enabled ? "enabled" : <span class="bad">suspended</span>,
        },
      ]}
    />
  );
}

function Filters({ url }: { url: URL }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  return (
    <form method="get" action="/console/accounts" class="row card" role="search">
      <Field name="q" label="Name or id contains" type="search" value={value("q")} />
      <Field name="group" label="Group" value={value("group")} />
      <Field
        name="enabled"
        label="State"
        value={value("enabled")}
        options={[["", "Any"], ["true", "Enabled"], ["false", "Suspended"]]}
      />
      <Field
        name="sort"
        label="Sort by"
        value={value("sort")}
        options={[
          ["created", "Created"],
          ["name", "Name"],
          ["balance", "Balance"],
          ["spend", "Spent today"],
          ["last_used", "Last used"],
        ]}
      />
      <Field
        name="order"
        label="Order"
        value={value("order")}
        options={[
          ["", "Default (A-Z, oldest; highest, latest first)"],
          ["asc", "Ascending"],
          ["desc", "Descending"],
        ]}
      />
      <div>
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}

async function accountsListPage(gateway: Gateway, c: ConsoleContext) {
  const url = c.get("url");
  const page = await gateway.accounts.list(accountListQuery(url));
  return renderPage(
    c,
    <>
      <p>
        <a class="button" href="/console/accounts/new">New account</a>
      </p>
      <Filters url={url} />
      <section class="card" aria-label="Accounts">
        <AccountRows accounts={page.data} money={c.get("money")} />
        {page.cursor
          ? (
            <p>
              <a href={`/console/accounts${listQuery(url, page.cursor)}`} rel="next">
                Next page
              </a>
            </p>
          )
          : null}
      </section>
      <CopyAsCurl
        id="curl-list"
        curl={adminCurl(baseUrlOf(gateway, url), {
          method: "GET",
          path: `/admin/accounts${listQuery(url)}`,
        })}
      />
    </>,
    { title: "Accounts", copyButtons: true },
  );
}

function NewAccountForm(
  { c, fields, problem }: { c: ConsoleContext; fields: Record<string, string>; problem?: string },
) {
  const currency = c.get("money").format.currency;
  return (
    <form method="post" action="/console/accounts" class="card">
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <CsrfField session={c.get("session")} />
      <div class="fields">
        <Field name="name" label="Name" value={fields.name ?? ""} required />
        <Field name="group" label="Group" value={fields.group ?? ""} hint="default when empty" />
        <Field
          name="credit_limit"
          label={`Credit limit (${currency})`}
          value={fields.credit_limit ?? ""}
          inputmode="decimal"
          hint="how far below zero the wallet may go, e.g. 5.00; 0 when empty"
        />
        <Field
          name="balance"
          label={`Opening balance (${currency})`}
          value={fields.balance ?? ""}
          inputmode="decimal"
          hint="e.g. 10.00; written as a credit"
        />
        <div>
          <label class="choice">
            <input
              type="checkbox"
              name="unlimited"
              value="true"
              checked={fields.unlimited === "true"}
            />
            <span>Unlimited (no floor: the wallet may go below zero without end)</span>
          </label>
        </div>
      </div>
      <p>
        <button type="submit">Create</button>
      </p>
    </form>
  );
}

function newAccountPage(
  c: ConsoleContext,
  options: { gateway: Gateway; fields?: Record<string, string>; problem?: string },
) {
  const fields = options.fields ?? {};
  const body = Object.keys(fields).length
    ? accountInputOf(fields)
    : { name: "Acme", group: "default", balance: 10_000_000 };
  return renderPage(
    c,
    <>
      <NewAccountForm c={c} fields={fields} problem={options.problem} />
      <CopyAsCurl
        id="curl-create"
        curl={adminCurl(baseUrlOf(options.gateway, c.get("url")), {
          method: "POST",
          path: "/admin/accounts",
          body,
        })}
      />
    </>,
    { title: "New account", status: options.problem ? 400 : 200, copyButtons: true },
  );
}

async function createAccount(gateway: Gateway, c: ConsoleContext) {
  const { csrf: _csrf, ...fields } = await readForm(c);
  let input;
  try {
    input = validate(accountInputSchema, accountInputOf(fields));
  } catch (error) {
    if (error instanceof GatewayError && error.status === 400) {
      return newAccountPage(c, { gateway, fields, problem: error.message });
    }
    throw error;
  }
  const created = await consoleChange(gateway, {
    c,
    change: {
      route: "/admin/accounts",
      method: "POST",
      target: { kind: "account", id: null },
      readTarget: (id) => gateway.accounts.get(id),
      apply: () => gateway.accounts.create(input),
      outcomeOf: (result) => ({ status: 201, createdId: result.id }),
    },
  });
  return c.redirect(`/console/accounts/${created.id}`, 303);
}

export function accountPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/accounts", (c) => accountsListPage(gateway, c));
  app.get("/console/accounts/new", (c) => newAccountPage(c, { gateway }));
  app.post("/console/accounts", (c) => createAccount(gateway, c));
  return app;
}
