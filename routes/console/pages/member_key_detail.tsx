/**
 * One key in the token management area: its limits and spend, Disable/Enable, its usage over 30
 * days and its recent requests, Edit, Rotate (the grace chosen), Delete (confirmed), and the SDK
 * snippets. A key the member may not manage (another member's, another account's) is a 404.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import { AccountArea } from "../../../core/account_area/account_area.ts";
import type { AccountActor } from "../../../core/account_area/actor.ts";
import { memberKeyPatchSchema } from "../../../core/account_area/member_key_schema.ts";
import { rotateInputSchema } from "../../../core/keys/key_schema.ts";
import type { Gateway } from "../../../core/gateway.ts";
import { validate } from "../../validation.ts";
import { BarChart } from "../bar_chart.tsx";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import type { ConsoleChange } from "../console_change.ts";
import { Field } from "../field.tsx";
import { readForm, readFormValues } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { SdkSnippets } from "../key_facts.tsx";
import { CsrfField } from "../layout.tsx";
import { accountActorOf } from "../member_actor.ts";
import { memberChange } from "../member_change.ts";
import { keyFormFields, MemberKeyForm } from "../member_key_form.tsx";
import { memberKeyPatchOf } from "../member_key_fields.ts";
import { RequestRows } from "../member_request_rows.tsx";
import { renderPage } from "../render.tsx";
import { dailySeries, DAY_MS, dayStart, totalsSince } from "../usage_summary.ts";
import { madeBy, memberKeyIdOf } from "./member_keys.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

type MemberKey = Awaited<ReturnType<AccountArea["key"]>>;

const GRACE_CHOICES = [
  ["0", "None: the old secret stops now"],
  ["3600", "1 hour"],
  ["86400", "1 day"],
  ["604800", "7 days"],
] as const;

function KeyFacts(
  { keyView, actor, money }: { keyView: MemberKey; actor: AccountActor; money: ConsoleMoney },
) {
  const caps = keyView.spend_limits ?? {};
  const period = (name: "day" | "week" | "month") => {
    const cap = caps[name];
    const spent = money.amount(keyView.period_spend[name]);
    return cap === undefined ? <>{spent} (no cap)</> : <>{spent} of {money.amount(cap)}</>;
  };
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd>{keyView.enabled ? "enabled" : <span class="bad">disabled</span>}</dd>
      <dt>Prefix</dt>
      <dd>
        <code>{keyView.prefix}…</code>
      </dd>
      {keyView.previous_secret
        ? (
          <>
            <dt>Previous secret</dt>
            <dd>
              <code>{keyView.previous_secret.prefix}…</code> works until{" "}
              {keyView.previous_secret.expires_at}
            </dd>
          </>
        )
        : null}
      <dt>Models</dt>
      <dd>{keyView.models ? keyView.models.join(", ") : "every model of the account"}</dd>
      <dt>IP allowlist</dt>
      <dd>{keyView.ip_allowlist ? keyView.ip_allowlist.join(", ") : "any address"}</dd>
      <dt>Expires</dt>
      <dd>{keyView.expires_at ?? "never"}</dd>
      <dt>Requests per minute</dt>
      <dd>{keyView.rpm ?? "no limit"}</dd>
      <dt>Tokens per minute</dt>
      <dd>{keyView.tpm ?? "no limit"}</dd>
      <dt>Spent today</dt>
      <dd>{period("day")}</dd>
      <dt>Spent this week</dt>
      <dd>{period("week")}</dd>
      <dt>Spent this month</dt>
      <dd>{period("month")}</dd>
      <dt>Last used</dt>
      <dd>{keyView.last_used_at ?? "never"}</dd>
      <dt>Made by</dt>
      <dd>{madeBy(keyView, actor)}</dd>
    </dl>
  );
}

export function memberKeyDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const area = new AccountArea(gateway);

  async function keyPage(
    c: ConsoleContext,
    id: string,
    form: { problem?: string; fields?: Record<string, string>; chosen?: string[] } = {},
    status: ContentfulStatusCode = 200,
  ) {
    const actor = await accountActorOf(gateway, c);
    const keyView = await area.key(actor, id);
    const now = Date.now();
    const usage = await area.keyUsage(actor, id, {
      from: dayStart(now) - 29 * DAY_MS,
      to: now,
      interval: "day",
      groupBy: [],
    });
    const totals = totalsSince(usage, 0);
    const series = dailySeries(usage, { now, days: 30 });
    const requests = await area.requests(actor, { limit: 20, order: "desc" }, { key: id });
    const models = await area.models(actor);
    const session = c.get("session");
    const money = c.get("money");
    return renderPage(
      c,
      <>
        {form.problem ? <p class="error" role="alert">{form.problem}</p> : null}
        <section class="card" aria-labelledby="facts-heading">
          <h2 id="facts-heading">{keyView.name}</h2>
          <KeyFacts keyView={keyView} actor={actor} money={money} />
          <form method="post" action={`/console/account/keys/${id}/enabled`} class="row">
            <CsrfField session={session} />
            {keyView.enabled
              ? <button type="submit" class="danger" name="enabled" value="false">Disable</button>
              : <button type="submit" name="enabled" value="true">Enable</button>}
          </form>
        </section>
        <section class="card" aria-labelledby="usage-heading">
          <h2 id="usage-heading">Usage, last 30 days</h2>
          <p>
            {totals.requests} requests, {totals.input_tokens} input and {totals.output_tokens}{" "}
            output tokens, {money.amount(totals.cost)} spent.
          </p>
          <BarChart
            id="key-spend"
            title="Spend by day"
            points={series.map((day) => ({ label: day.day, value: day.cost }))}
            format={money.full}
          />
        </section>
        <section class="card" aria-labelledby="requests-heading">
          <h2 id="requests-heading">Recent requests</h2>
          <RequestRows rows={requests.data} money={money} />
          <p>
            <a href={`/console/account/usage?key=${id}`}>All of this key's requests</a>
          </p>
        </section>
        <section class="card" aria-labelledby="edit-heading">
          <h2 id="edit-heading">Edit</h2>
          <MemberKeyForm
            c={c}
            action={`/console/account/keys/${id}/edit`}
            models={models}
            chosen={form.chosen ?? keyView.models ?? []}
            fields={form.fields ?? keyFormFields(keyView)}
            isNew={false}
            submit="Save"
            idPrefix="edit-"
          />
        </section>
        <section class="card" aria-labelledby="rotate-heading">
          <h2 id="rotate-heading">Rotate</h2>
          <p>
            Gives the key a new secret, shown once; its settings and spend stay. The old secret
            keeps working for the grace period you choose.
          </p>
          <form method="post" action={`/console/account/keys/${id}/rotate`} class="row">
            <CsrfField session={session} />
            <Field
              name="grace_seconds"
              label="Grace period"
              value="86400"
              options={GRACE_CHOICES}
            />
            <div>
              <button type="submit">Rotate</button>
            </div>
          </form>
        </section>
        <section class="card" aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete</h2>
          <form method="post" action={`/console/account/keys/${id}/delete`} class="row">
            <CsrfField session={session} />
            <div>
              <input id="confirm" name="confirm" type="checkbox" value="yes" required />{" "}
              <label for="confirm" class="inline">
                Delete this key: its secret stops working at once; its requests stay in the usage
              </label>
            </div>
            <div>
              <button type="submit" class="danger">Delete</button>
            </div>
          </form>
        </section>
        <SdkSnippets
          baseUrl={baseUrlOf(gateway, c.get("url"))}
          model={(keyView.models ?? models)[0]}
        />
      </>,
      { title: `Key ${keyView.name}`, copyButtons: true, status },
    );
  }

  /** Runs a change; a refused one (not a 404 or 403) shows the key's page with the problem. */
  async function change<T>(
    c: ConsoleContext,
    id: string,
    make: (actor: AccountActor) => ConsoleChange<T>,
    form: { fields?: Record<string, string>; chosen?: string[] } = {},
  ): Promise<{ result: T } | Response> {
    const actor = await accountActorOf(gateway, c);
    try {
      return { result: await memberChange(gateway, { c, actor, change: make(actor) }) };
    } catch (error) {
      const problem = formProblemOf(error);
      if (problem.status === 404 || problem.status === 403) throw error;
      return await keyPage(c, id, { problem: problem.message, ...form }, problem.status);
    }
  }

  const keyChange = <T,>(
    id: string,
    method: string,
    apply: () => Promise<T>,
    actor: AccountActor,
  ): ConsoleChange<T> => ({
    route: "/console/account/keys/:id",
    method,
    target: { kind: "key", id },
    readTarget: (target) => area.key(actor, target),
    apply,
  });

  app.get("/console/account/keys/:id", (c) => keyPage(c, memberKeyIdOf(c)));
  app.post("/console/account/keys/:id/enabled", async (c) => {
    const id = memberKeyIdOf(c);
    const enabled = (await readForm(c)).enabled === "true";
    const done = await change(
      c,
      id,
      (actor) => keyChange(id, "PATCH", () => area.updateKey(actor, id, { enabled }), actor),
    );
    return done instanceof Response ? done : c.redirect(`/console/account/keys/${id}`, 303);
  });
  app.post("/console/account/keys/:id/edit", async (c) => {
    const id = memberKeyIdOf(c);
    const fields = await readForm(c);
    const chosen = await readFormValues(c, "models");
    const { csrf: _csrf, ...shown } = fields;
    const done = await change(
      c,
      id,
      (actor) =>
        keyChange(id, "PATCH", () => {
          const patch = validate(memberKeyPatchSchema, memberKeyPatchOf(fields, chosen));
          return area.updateKey(actor, id, patch);
        }, actor),
      { fields: shown, chosen },
    );
    return done instanceof Response ? done : c.redirect(`/console/account/keys/${id}`, 303);
  });
  app.post("/console/account/keys/:id/rotate", async (c) => {
    const id = memberKeyIdOf(c);
    const grace = (await readForm(c)).grace_seconds?.trim() ?? "";
    const done = await change(c, id, (actor) =>
      keyChange(id, "POST", () => {
        const input = validate(rotateInputSchema, {
          grace_seconds: /^\d+$/.test(grace) ? Number(grace) : grace,
        });
        return area.rotateKey(actor, id, { graceSeconds: input.grace_seconds });
      }, actor));
    if (done instanceof Response) return done;
    await gateway.consoleSessions.putFlash(
      c.get("session").id,
      { owner: id, secret: done.result.key },
    );
    return c.redirect(`/console/account/keys/${id}/created`, 303);
  });
  app.post("/console/account/keys/:id/delete", async (c) => {
    const id = memberKeyIdOf(c);
    if ((await readForm(c)).confirm !== "yes") {
      return await keyPage(c, id, { problem: "Tick the box to confirm the deletion" }, 400);
    }
    const done = await change(c, id, (actor) => ({
      ...keyChange(id, "DELETE", () => area.deleteKey(actor, id), actor),
      outcomeOf: () => ({ status: 204 }),
    }));
    return done instanceof Response ? done : c.redirect("/console/account/keys", 303);
  });
  return app;
}
