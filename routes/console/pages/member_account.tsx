/**
 * A member's dashboard: the account viewed and their role, the wallet's balance and floor, spend
 * today, this month and over 30 days, spend by key and by model, running tasks, and the switcher
 * among their accounts.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { ConsoleContext, ConsoleEnv } from "../console_env.ts";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { AccountArea } from "../../../core/account_area/account_area.ts";
import type { AccountActor } from "../../../core/account_area/actor.ts";
import { BarChart } from "../bar_chart.tsx";
import { DataTable } from "../data_table.tsx";
import { formatUnits } from "../snippets.ts";
import { DAY_MS, dayStart, type Ranked, topBy, totalsSince } from "../usage_summary.ts";
import { floorText } from "../wallet_floor.ts";

/** The member and account of a member's session (member pages only run for members). */
export function memberOf(c: ConsoleContext): { memberId: string; accountId: string } {
  const role = c.get("session").role;
  if (role.kind !== "member") throw new GatewayError("members_only", 403, "Members only");
  return { memberId: role.memberId, accountId: role.accountId };
}

/** The dashboard's numbers: the wallet, spend in three windows, the charts' rows, the tasks. */
async function dashboardOf(gateway: Gateway, actor: AccountActor) {
  const area = new AccountArea(gateway);
  const now = Date.now();
  const account = await area.account(actor);
  const usage = await area.usage(actor, {
    from: dayStart(now) - 29 * DAY_MS,
    to: now,
    interval: "day",
    groupBy: ["key", "model"],
  });
  const keyNames = new Map(
    (await gateway.accounts.keyIdsOf(actor.accountId)).map((id) => [id, id]),
  );
  for (const key of await area.keys(actor)) keyNames.set(key.id, key.name);
  const running = [];
  for (const status of ["in_progress", "submitted"] as const) {
    running.push(...(await area.tasks(actor, { limit: 20, order: "desc" }, { status })).data);
  }
  return {
    account,
    spend30: totalsSince(usage, 0).cost,
    byKey: topBy(usage, { field: "key_id", limit: 10 }),
    byModel: topBy(usage, { field: "model", limit: 10 }),
    keyNames,
    running,
  };
}

function SpendChart(
  { id, title, rows, nameOf }: {
    id: string;
    title: string;
    rows: Ranked[];
    nameOf: (name: string | null) => string;
  },
) {
  if (!rows.length) return <p class="muted">No spend in the last 30 days.</p>;
  return (
    <>
      <BarChart
        id={id}
        title={title}
        points={rows.map((row) => ({ label: nameOf(row.name), value: row.cost }))}
        format={formatUnits}
      />
      <DataTable
        rows={rows}
        columns={[
          { header: "Name", cell: (row) => nameOf(row.name) },
          { header: "Requests", cell: (row) => row.requests },
          { header: "Spent", cell: (row) => formatUnits(row.cost) },
        ]}
      />
    </>
  );
}

function Dashboard(
  { data, role }: { data: Awaited<ReturnType<typeof dashboardOf>>; role: string },
) {
  const { account } = data;
  return (
    <>
      <section class="card" aria-labelledby="account-heading">
        <h2 id="account-heading">{account.name}</h2>
        <dl class="facts">
          <dt>Account</dt>
          <dd>
            <code>{account.id}</code>
          </dd>
          <dt>Your role</dt>
          <dd>{role}</dd>
          <dt>Balance</dt>
          <dd id="balance">{formatUnits(account.balance)}</dd>
          <dt>Floor</dt>
          <dd>{floorText(account)}</dd>
          <dt>State</dt>
          <dd>{account.enabled ? "active" : <span class="bad">suspended by the operator</span>}</dd>
          <dt>Spent today</dt>
          <dd id="spend-today">{formatUnits(account.spend_today)}</dd>
          <dt>Spent this month</dt>
          <dd id="spend-month">{formatUnits(account.spend_month)}</dd>
          <dt>Spent over 30 days</dt>
          <dd id="spend-30">{formatUnits(data.spend30)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="by-key-heading">
        <h2 id="by-key-heading">Spend by key, last 30 days</h2>
        <SpendChart
          id="by-key"
          title="Spend by key"
          rows={data.byKey}
          nameOf={(name) => name === null ? "no key" : data.keyNames.get(name) ?? name}
        />
      </section>
      <section class="card" aria-labelledby="by-model-heading">
        <h2 id="by-model-heading">Spend by model, last 30 days</h2>
        <SpendChart
          id="by-model"
          title="Spend by model"
          rows={data.byModel}
          nameOf={(name) => name ?? "no model"}
        />
      </section>
      <section class="card" aria-labelledby="tasks-heading">
        <h2 id="tasks-heading">Running tasks</h2>
        <DataTable
          rows={data.running}
          empty="No task is running."
          columns={[
            { header: "Task", cell: (task) => <code>{task.id}</code> },
            { header: "Kind", cell: (task) => task.kind },
            { header: "Model", cell: (task) => task.model },
            { header: "Status", cell: (task) => task.status },
            { header: "Progress", cell: (task) => task.progress },
            { header: "Key", cell: (task) => data.keyNames.get(task.key_id) ?? task.key_id },
          ]}
        />
      </section>
    </>
  );
}

export function memberAccountPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/account", async (c) => {
    const { memberId, accountId } = memberOf(c);
    const memberships = await gateway.members.store.membershipsOf(memberId);
    const current = memberships.find((m) => m.account_id === accountId);
    const session = c.get("session");
    const data = current
      ? await dashboardOf(gateway, { accountId, memberId, role: current.role }).catch((error) => {
        // An account removed under its members: the page still offers the switcher.
        if (error instanceof GatewayError && error.status === 404) return undefined;
        throw error;
      })
      : undefined;
    return renderPage(
      c,
      <>
        {current && data ? <Dashboard data={data} role={current.role} /> : (
          <section class="card">
            <p class="notice">
              {current
                ? `The account ${accountId} cannot be read now.`
                : "You are not a member of any account now."}
            </p>
          </section>
        )}
        {memberships.length > 1
          ? (
            <section class="card" aria-labelledby="switch-heading">
              <h2 id="switch-heading">Switch account</h2>
              <form method="post" action="/console/account" class="row">
                <CsrfField session={session} />
                <Field
                  name="account_id"
                  label="Account"
                  value={accountId}
                  options={memberships.map((m) => [m.account_id, `${m.account_id} (${m.role})`])}
                />
                <button type="submit">Switch</button>
              </form>
            </section>
          )
          : null}
      </>,
      { title: "Dashboard" },
    );
  });
  app.post("/console/account", async (c) => {
    const { memberId } = memberOf(c);
    const accountId = (await readForm(c)).account_id ?? "";
    if (!(await gateway.members.store.roleIn(memberId, accountId))) {
      throw new GatewayError("not_a_member", 403, "You are not a member of that account");
    }
    await gateway.consoleSessions.setRole(c.get("session").id, {
      kind: "member",
      memberId,
      accountId,
    });
    return c.redirect("/console/account", 303);
  });
  return app;
}
