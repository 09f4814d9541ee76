/**
 * A member's dashboard: the account viewed and their role, the wallet's balance and floor, spend
 * today, this month and over 30 days, spend by key and by model, running tasks, and the switcher
 * among their accounts.
 */

import { Hono } from "hono";
import type { Child } from "hono/jsx";
import type { ConsoleMoney } from "../money.tsx";
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
import {
  dailySeries,
  DAY_MS,
  dayStart,
  type Ranked,
  topBy,
  totalsSince,
} from "../usage_summary.ts";
import { ShareBars } from "../share_bars.tsx";
import { MemberKeyName } from "../name_links.tsx";
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
  // The keys the member manages: the only ones linked (an owner's: all of the account's).
  const managedNames = new Map((await area.keys(actor)).map((key) => [key.id, key.name]));
  for (const [id, name] of managedNames) keyNames.set(id, name);
  const running = [];
  for (const status of ["in_progress", "submitted"] as const) {
    running.push(...(await area.tasks(actor, { limit: 20, order: "desc" }, { status })).data);
  }
  return {
    account,
    spend30: totalsSince(usage, 0).cost,
    days: dailySeries(usage, { now, days: 30 }),
    byKey: topBy(usage, { field: "key_id", limit: 10 }),
    byModel: topBy(usage, { field: "model", limit: 10 }),
    keyNames,
    managedNames,
    running,
  };
}

function Dashboard(
  { data, role, money }: {
    data: Awaited<ReturnType<typeof dashboardOf>>;
    role: string;
    money: ConsoleMoney;
  },
) {
  const { account } = data;
  const tile = (id: string, label: string, value: Child) => (
    <div class="tile">
      <span class="tile-label">{label}</span>
      <span class="tile-value" id={id}>{value}</span>
    </div>
  );
  const shares = (rows: Ranked[], nameOf: (name: string | null) => string) =>
    rows.map((row) => ({ label: nameOf(row.name), value: row.cost, requests: row.requests }));
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
          <dt>State</dt>
          <dd>{account.enabled ? "active" : <span class="bad">suspended by the operator</span>}</dd>
        </dl>
        <div class="tiles">
          {tile("balance", "Balance", money.amount(account.balance))}
          {tile("floor", "Floor", floorText(account, money))}
          {tile("spend-today", "Spent today", money.amount(account.spend_today))}
          {tile("spend-month", "Spent this month", money.amount(account.spend_month))}
          {tile("spend-30", "Spent over 30 days", money.amount(data.spend30))}
        </div>
        <BarChart
          id="spend-days"
          title="Spend per day, 30 days"
          points={data.days.map((day) => ({ label: day.day, value: day.cost }))}
          format={money.full}
        />
      </section>
      <section class="card" aria-labelledby="spend-heading">
        <h2 id="spend-heading">Where it went, last 30 days</h2>
        <div class="charts">
          <ShareBars
            caption="Spend by key"
            rows={shares(
              data.byKey,
              (name) => name === null ? "no key" : data.keyNames.get(name) ?? name,
            )}
            format={money.amount}
            empty="No spend in the last 30 days."
          />
          <ShareBars
            caption="Spend by model"
            rows={shares(data.byModel, (name) => name ?? "no model")}
            format={money.amount}
            empty="No spend in the last 30 days."
          />
        </div>
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
            {
              header: "Key",
              cell: (task) => <MemberKeyName id={task.key_id} names={data.managedNames} />,
            },
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
        {current && data
          ? <Dashboard data={data} role={current.role} money={c.get("money")} />
          : (
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
