/**
 * Operator's price tiers: the groups with a record (multiplier, description) and the groups
 * accounts use without one (×1), each with its number of accounts; the Add or change form; and a
 * group's page with its form and Delete (a box to tick). Reads and changes go through the same
 * service calls as /admin/groups, and a change is audited as that route's, by the console session.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { groupInputSchema, type GroupRecord } from "../../../core/accounts/group_schema.ts";
import { checkGroupName, groupNotFound } from "../../../core/accounts/group_store.ts";
import { GatewayError } from "../../../core/errors.ts";
import { validate } from "../../validation.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { groupInputOf, groupNameOf } from "../group_form.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { adminCurl } from "../snippets.ts";

/** A group as the list shows it: its record (none: priced ×1) and how many accounts are in it. */
export interface GroupRow {
  name: string;
  record: GroupRecord | null;
  accounts: number;
}

/** The rows of the list: every record, and every group accounts use without one, by name. */
export function groupRows(records: GroupRecord[], accountGroups: string[]): GroupRow[] {
  const rows = new Map<string, GroupRow>(
    records.map((record) => [record.name, { name: record.name, record, accounts: 0 }]),
  );
  for (const group of accountGroups) {
    const row = rows.get(group) ?? { name: group, record: null, accounts: 0 };
    row.accounts++;
    rows.set(group, row);
  }
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name));
}

const groupPath = (name: string) => `/console/groups/${encodeURIComponent(name)}`;
const accountsPath = (name: string) => `/console/accounts?group=${encodeURIComponent(name)}`;

async function accountGroups(gateway: Gateway, group?: string): Promise<string[]> {
  const page = await gateway.accounts.list({ group, limit: Number.MAX_SAFE_INTEGER });
  return page.data.map((account) => account.group);
}

function MultiplierCell({ row }: { row: GroupRow }) {
  if (!row.record) return <span class="muted">×1 (no record)</span>;
  return <>×{row.record.price_multiplier}</>;
}

function GroupTable({ rows }: { rows: GroupRow[] }) {
  return (
    <DataTable
      rows={rows}
      empty="No group has a record, and no account names one."
      columns={[
        { header: "Name", cell: (row) => <a href={groupPath(row.name)}>{row.name}</a> },
        { header: "Price multiplier", cell: (row) => <MultiplierCell row={row} /> },
        { header: "Description", cell: (row) => row.record?.description ?? "" },
        {
          header: "Accounts",
          cell: (row) => <a href={accountsPath(row.name)}>{row.accounts}</a>,
        },
        { header: "Updated", cell: (row) => row.record?.updated_at ?? "" },
      ]}
    />
  );
}

function GroupFields(
  { fields, withName }: { fields: Record<string, string>; withName: boolean },
) {
  return (
    <div class="fields">
      {withName
        ? (
          <Field
            name="name"
            label="Name"
            value={fields.name ?? ""}
            required
            hint="as accounts and keys name it; a group of this name that exists is changed"
          />
        )
        : null}
      <Field
        name="price_multiplier"
        label="Price multiplier"
        value={fields.price_multiplier ?? ""}
        hint="catalog price × this: greater than 0, at most 10, 4 decimals at most; 1 when empty"
      />
      <Field name="description" label="Description" value={fields.description ?? ""} />
    </div>
  );
}

function Problem({ problem }: { problem?: string }) {
  return problem ? <p class="error" role="alert">{problem}</p> : null;
}

async function groupsPage(
  gateway: Gateway,
  { c, fields = {}, problem }: {
    c: ConsoleContext;
    fields?: Record<string, string>;
    problem?: string;
  },
) {
  const rows = groupRows(gateway.groups.list(), await accountGroups(gateway));
  const base = baseUrlOf(gateway, c.get("url"));
  return renderPage(
    c,
    <>
      <section class="card" aria-label="Groups">
        <p class="muted">
          Each request of an account in a group is priced at the catalog price × the group's
          multiplier. An account's group is set on the account's page.
        </p>
        <GroupTable rows={rows} />
        <CopyAsCurl
          id="curl-list"
          curl={adminCurl(base, { method: "GET", path: "/admin/groups" })}
        />
      </section>
      <section class="card" aria-labelledby="add-heading">
        <h2 id="add-heading">Add or change a group</h2>
        <form method="post" action="/console/groups">
          <Problem problem={problem} />
          <CsrfField session={c.get("session")} />
          <GroupFields fields={fields} withName />
          <p>
            <button type="submit">Save group</button>
          </p>
        </form>
        <CopyAsCurl
          id="curl-put"
          curl={adminCurl(base, {
            method: "PUT",
            path: "/admin/groups/vip",
            body: { description: "good customers", price_multiplier: 0.8 },
          })}
        />
      </section>
    </>,
    { title: "Groups", status: problem ? 400 : 200, copyButtons: true },
  );
}

function DeleteForm({ c, name }: { c: ConsoleContext; name: string }) {
  return (
    <form method="post" action={`${groupPath(name)}/delete`} class="row">
      <CsrfField session={c.get("session")} />
      <div>
        <input id="confirm-delete" name="confirm" type="checkbox" value="yes" required />{" "}
        <label for="confirm-delete" class="inline">
          Delete this group's record: its accounts stay in the group, priced ×1 again
        </label>
      </div>
      <div>
        <button type="submit" class="danger">Delete</button>
      </div>
    </form>
  );
}

async function groupPage(
  gateway: Gateway,
  { c, name, fields, problem }: {
    c: ConsoleContext;
    name: string;
    fields?: Record<string, string>;
    problem?: string;
  },
) {
  const record = await gateway.groups.get(name).catch((error) => {
    if (error instanceof GatewayError && error.status === 404) return null;
    throw error;
  });
  const accounts = (await accountGroups(gateway, name)).length;
  if (!record && accounts === 0) throw groupNotFound(name);
  const shown = fields ?? {
    price_multiplier: record ? String(record.price_multiplier) : "",
    description: record?.description ?? "",
  };
  const base = baseUrlOf(gateway, c.get("url"));
  const apiPath = `/admin/groups/${encodeURIComponent(name)}`;
  return renderPage(
    c,
    <>
      <Problem problem={problem} />
      <section class="card" aria-labelledby="facts-heading">
        <h2 id="facts-heading">{name}</h2>
        <dl class="facts">
          <dt>Price multiplier</dt>
          <dd>{record ? `×${record.price_multiplier}` : "×1 (no record)"}</dd>
          <dt>Description</dt>
          <dd>{record?.description ?? ""}</dd>
          <dt>Accounts</dt>
          <dd>
            <a href={accountsPath(name)}>{accounts}</a>
          </dd>
          <dt>Updated</dt>
          <dd>{record?.updated_at ?? "never"}</dd>
        </dl>
        <p>
          <a href={`/console/audit?target_kind=group&target_id=${encodeURIComponent(name)}`}>
            Changes to this group
          </a>{" "}
          (the audit log)
        </p>
      </section>
      <section class="card" aria-labelledby="edit-heading">
        <h2 id="edit-heading">{record ? "Change" : "Give it a record"}</h2>
        <form method="post" action={groupPath(name)}>
          <CsrfField session={c.get("session")} />
          <GroupFields fields={shown} withName={false} />
          <p>
            <button type="submit">Save group</button>
          </p>
        </form>
        <CopyAsCurl
          id="curl-put"
          curl={adminCurl(base, {
            method: "PUT",
            path: apiPath,
            body: groupInputOf(shown),
          })}
        />
      </section>
      {record
        ? (
          <section class="card" aria-labelledby="delete-heading">
            <h2 id="delete-heading">Delete</h2>
            <DeleteForm c={c} name={name} />
            <CopyAsCurl
              id="curl-delete"
              curl={adminCurl(base, { method: "DELETE", path: apiPath })}
            />
          </section>
        )
        : null}
    </>,
    { title: `Group ${name}`, status: problem ? 400 : 200, copyButtons: true },
  );
}

/** Writes the group record as PUT /admin/groups/:name does, audited as that route. */
function putGroup(gateway: Gateway, c: ConsoleContext, fields: Record<string, string>) {
  const name = checkGroupName(fields.name);
  const input = validate(groupInputSchema, groupInputOf(fields));
  return consoleChange(gateway, {
    c,
    change: {
      route: "/admin/groups/:name",
      method: "PUT",
      target: { kind: "group", id: name },
      readTarget: (target) => gateway.groups.get(target),
      apply: () => gateway.groups.put(name, input),
    },
  });
}

function badInput(error: unknown): string {
  if (error instanceof GatewayError && error.status === 400) return error.message;
  throw error;
}

function nameParam(c: ConsoleContext): string {
  return checkGroupName(c.req.param("name") ?? "");
}

export function groupPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/groups", (c) => groupsPage(gateway, { c }));
  app.post("/console/groups", async (c) => {
    const { csrf: _csrf, ...fields } = await readForm(c);
    try {
      await putGroup(gateway, c, { ...fields, name: groupNameOf(fields) });
    } catch (error) {
      return groupsPage(gateway, { c, fields, problem: badInput(error) });
    }
    return c.redirect("/console/groups", 303);
  });
  app.get("/console/groups/:name", (c) => groupPage(gateway, { c, name: nameParam(c) }));
  app.post("/console/groups/:name", async (c) => {
    const name = nameParam(c);
    const { csrf: _csrf, ...fields } = await readForm(c);
    try {
      await putGroup(gateway, c, { ...fields, name });
    } catch (error) {
      return groupPage(gateway, { c, name, fields, problem: badInput(error) });
    }
    return c.redirect(groupPath(name), 303);
  });
  app.post("/console/groups/:name/delete", async (c) => {
    const name = nameParam(c);
    const form = await readForm(c);
    if (form.confirm !== "yes") {
      return groupPage(gateway, {
        c,
        name,
        problem: "Tick the box to confirm the deletion; nothing was changed",
      });
    }
    await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/groups/:name",
        method: "DELETE",
        target: { kind: "group", id: name },
        readTarget: (target) => gateway.groups.get(target),
        apply: () => gateway.groups.delete(name),
        outcomeOf: () => ({ status: 204 }),
      },
    });
    return c.redirect("/console/groups", 303);
  });
  return app;
}
