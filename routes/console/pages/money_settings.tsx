/**
 * The operator's Money page: the currency (ISO 4217) and display precision every amount of the
 * console is shown in, with what an amount, a small amount and a price look like. A change goes
 * through the same service call as PATCH /admin/settings/money and is audited as that route, by
 * the console session. A display setting only: stored money never changes.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import {
  moneyFormatPatchSchema,
  type MoneyFormatView,
} from "../../../core/console/money_format.ts";
import { MAX_MONEY_DECIMALS, MIN_MONEY_DECIMALS } from "../../../core/util/money_format.ts";
import { validate } from "../../validation.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { consoleMoney } from "../money.tsx";
import { currencyPrefix } from "../money_text.ts";
import { moneyPatchOf } from "../money_form.ts";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";

const CURRENCIES = Intl.supportedValuesOf("currency");

/** `EUR (€)`; a currency whose symbol is its code is just `CHF`. */
function currencyLabel(code: string): string {
  const symbol = currencyPrefix(code).trim();
  return symbol === code ? code : `${code} (${symbol})`;
}

function Examples({ view }: { view: MoneyFormatView }) {
  const money = consoleMoney(view);
  return (
    <dl class="facts" id="money-examples">
      <dt>An amount</dt>
      <dd>{money.amount(1_234_567)}</dd>
      <dt>A small amount</dt>
      <dd>{money.amount(1_234)}</dd>
      <dt>A price</dt>
      <dd>{money.price(15)} per character</dd>
    </dl>
  );
}

async function moneyPage(
  gateway: Gateway,
  { c, fields, problem }: {
    c: ConsoleContext;
    fields?: Record<string, string>;
    problem?: { message: string; status: 400 | 409 };
  },
) {
  const view = await gateway.moneyFormat.get();
  const shown = fields ?? { currency: view.currency, decimals: String(view.decimals) };
  const base = baseUrlOf(gateway, c.get("url"));
  const decimals = Array.from(
    { length: MAX_MONEY_DECIMALS - MIN_MONEY_DECIMALS + 1 },
    (_, index) => String(MIN_MONEY_DECIMALS + index),
  );
  return renderPage(
    c,
    <>
      <section class="card" aria-labelledby="money-heading">
        <h2 id="money-heading">How amounts are shown</h2>
        <p class="muted">
          Every amount of the console (operator and member pages) is shown in this currency, rounded
          half away from zero to this many decimals; a rounded amount carries its exact value as a
          tooltip, and an amount too small to show reads "{consoleMoney({ ...view, decimals: 2 })
            .text(1)}" (at 2 decimals), never zero. Prices show every decimal they have. Forms take
          amounts in the same currency. Money is stored in units (a millionth of the currency)
          whatever is chosen here.
        </p>
        <p>
          {view.source === "setting"
            ? `Set by an operator at ${view.updated_at}.`
            : "Not set yet: the defaults of the process (GATEWAY_CURRENCY, GATEWAY_MONEY_DECIMALS)."}
        </p>
        <Examples view={view} />
      </section>
      <section class="card" aria-labelledby="change-heading">
        <h2 id="change-heading">Change</h2>
        <form method="post" action="/console/money">
          {problem ? <p class="error" role="alert">{problem.message}</p> : null}
          <CsrfField session={c.get("session")} />
          <div class="fields">
            <Field
              name="currency"
              label="Currency"
              value={shown.currency ?? ""}
              options={CURRENCIES.map((code) => [code, currencyLabel(code)])}
              hint="ISO 4217 code"
            />
            <Field
              name="decimals"
              label="Decimals shown"
              value={shown.decimals ?? ""}
              options={decimals.map((count) => [count, count])}
              hint="2-6; 6 shows every amount exactly"
            />
          </div>
          <p>
            <button type="submit">Save</button>
          </p>
        </form>
        <CopyAsCurl
          id="curl-patch"
          curl={adminCurl(base, {
            method: "PATCH",
            path: "/admin/settings/money",
            body: { currency: view.currency, decimals: view.decimals },
          })}
        />
      </section>
    </>,
    { title: "Money", status: problem?.status ?? 200, copyButtons: true },
  );
}

/** Changes the money format as PATCH /admin/settings/money does, audited as that route. */
function patchMoney(gateway: Gateway, c: ConsoleContext, fields: Record<string, string>) {
  const patch = validate(moneyFormatPatchSchema, moneyPatchOf(fields));
  return consoleChange(gateway, {
    c,
    change: {
      route: "/admin/settings/money",
      method: "PATCH",
      target: { kind: "setting", id: "money" },
      readTarget: () => gateway.moneyFormat.get(),
      apply: () => gateway.moneyFormat.patch(patch),
    },
  });
}

export function moneySettingsPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/money", requireOperator(), (c) => moneyPage(gateway, { c }));
  app.post("/console/money", requireOperator(), async (c) => {
    const { csrf: _csrf, ...fields } = await readForm(c);
    try {
      await patchMoney(gateway, c, fields);
    } catch (error) {
      const problem = formProblemOf(error);
      return moneyPage(gateway, {
        c,
        fields,
        problem: { message: problem.message, status: problem.status === 409 ? 409 : 400 },
      });
    }
    return c.redirect("/console/money", 303);
  });
  return app;
}
