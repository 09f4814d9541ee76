/**
 * Operator's account page, in tabs (`?tab=`, links: no script): the account's facts and usage,
 * Suspend (a box to tick) / Resume and its wallet with the ledger check; Add credit and the
 * wallet's last 20 entries; its keys; Edit (name, group, credit limit, unlimited). Changes go
 * through the same service calls as /admin/accounts/:id… and are audited as those routes, by the
 * console session.
 */

import { Hono } from "hono";
import { currencyOfUnits } from "../currency_units.ts";
import type { Gateway } from "../../../core/gateway.ts";
import { accountPatchSchema, type PublicAccount } from "../../../core/accounts/account_schema.ts";
import { verifyLedger } from "../../../core/billing/ledger_audit.ts";
import { multiplierText, type PriceTier } from "../../../core/billing/price_tier.ts";
import { GatewayError } from "../../../core/errors.ts";
import { creditInputSchema } from "../../../core/keys/key_schema.ts";
import { accountNotFound } from "../../admin/shared.ts";
import { hasIdShape } from "../../params.ts";
import { validate } from "../../validation.ts";
import { accountPatchOf, creditInputOf } from "../account_form.ts";
import { AccountKeys, LedgerCheck, WalletFacts, WalletLedger } from "../account_sections.tsx";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { type ConsoleChange, consoleChange } from "../console_change.ts";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { SectionTabs, type Tab, tabHref, tabOf } from "../section_nav.tsx";
import { adminCurl } from "../snippets.ts";
import { CreditCard } from "../credit_card.tsx";
import type { ConsoleMoney } from "../money.tsx";

function accountIdOf(c: ConsoleContext): string {
  const id = c.req.param("id") ?? "";
  if (!hasIdShape(id, "account")) throw accountNotFound(id.slice(0, 80));
  return id;
}

function UsageFacts(
  { account, tier, money }: { account: PublicAccount; tier: PriceTier; money: ConsoleMoney },
) {
  return (
    <dl class="facts">
      <dt>Id</dt>
      <dd>
        <code>{account.id}</code>
      </dd>
      <dt>State</dt>
      <dd>{account.enabled ? "enabled" : <span class="bad">suspended</span>}</dd>
      <dt>Group</dt>
      <dd>
        <a href={`/console/groups/${encodeURIComponent(account.group)}`}>{account.group}</a>{" "}
        (prices ×{multiplierText(tier.multiplier)})
      </dd>
      <dt>Keys</dt>
      <dd>{account.keys}</dd>
      <dt>Spent today</dt>
      <dd>{money.amount(account.spend_today)}</dd>
      <dt>Spent this month</dt>
      <dd>{money.amount(account.spend_month)}</dd>
      <dt>Last used</dt>
      <dd>{account.last_used_at ?? "never"}</dd>
      <dt>Created</dt>
      <dd>{account.created_at}</dd>
    </dl>
  );
}

function SuspendForm({ c, account }: { c: ConsoleContext; account: PublicAccount }) {
  const session = c.get("session");
  if (!account.enabled) {
    return (
      <form method="post" action={`/console/accounts/${account.id}/resume`} class="row">
        <CsrfField session={session} />
        <p class="bad">
          Suspended: every key of this account is refused with 403 <code>account_disabled</code>.
        </p>
        <div>
          <button type="submit">Resume</button>
        </div>
      </form>
    );
  }
  return (
    <form method="post" action={`/console/accounts/${account.id}/suspend`} class="row">
      <CsrfField session={session} />
      <div>
        <input id="confirm-suspend" name="confirm" type="checkbox" value="yes" required />{" "}
        <label for="confirm-suspend" class="inline">
          Suspend this account:{" "}
          {account.keys === 1 ? "its key is" : `all ${account.keys} of its keys are`} refused (403
          {" "}
          <code>account_disabled</code>) until it is resumed; its balance, ledger and keys stay
        </label>
      </div>
      <div>
        <button type="submit" class="danger">Suspend</button>
      </div>
    </form>
  );
}

function EditForm({ c, account }: { c: ConsoleContext; account: PublicAccount }) {
  return (
    <form method="post" action={`/console/accounts/${account.id}/edit`}>
      <CsrfField session={c.get("session")} />
      <div class="fields">
        <Field name="name" id="edit-name" label="Name" value={account.name} required />
        <Field name="group" id="edit-group" label="Group" value={account.group} required />
        <Field
          name="credit_limit"
          id="edit-credit_limit"
          label={`Credit limit (${c.get("money").format.currency})`}
          value={currencyOfUnits(account.credit_limit)}
          inputmode="decimal"
          hint="how far below zero the wallet may go"
        />
        <div>
          <input type="hidden" name="unlimited" value="false" />
          <label class="choice">
            <input type="checkbox" name="unlimited" value="true" checked={account.unlimited} />
            <span>Unlimited (no floor)</span>
          </label>
        </div>
      </div>
      <p>
        <button type="submit">Save</button>
      </p>
    </form>
  );
}

export const ACCOUNT_TABS = [
  { id: "account", label: "Account" },
  { id: "wallet", label: "Wallet and ledger" },
  { id: "keys", label: "Keys" },
  { id: "settings", label: "Settings" },
] as const satisfies readonly Tab[];

export type AccountTab = typeof ACCOUNT_TABS[number]["id"];

async function accountDetailPage(
  gateway: Gateway,
  { c, id, problem, tab: shown }: {
    c: ConsoleContext;
    id: string;
    problem?: string;
    /** The tab of the form that had the problem; else the URL's. */
    tab?: AccountTab;
  },
) {
  const tab = shown ?? tabOf(c.get("url"), ACCOUNT_TABS);
  const account = await gateway.accounts.get(id);
  const base = baseUrlOf(gateway, c.get("url"));
  const session = c.get("session");
  const money = c.get("money");
  const sections = async () => {
    switch (tab) {
      case "account": {
        const check = await verifyLedger(gateway.kv, account.wallet_id);
        return (
          <>
            <section class="card" aria-labelledby="facts-heading">
              <h2 id="facts-heading">{account.name}</h2>
              <UsageFacts
                account={account}
                tier={gateway.groups.tierOf(account.group)}
                money={money}
              />
              <p>
                <a href={`/console/audit?target_kind=account&target_id=${id}`}>
                  Changes to this account
                </a>{" "}
                (the audit log)
              </p>
              <SuspendForm c={c} account={account} />
              <CopyAsCurl
                id="curl-enabled"
                curl={adminCurl(base, {
                  method: "POST",
                  path: `/admin/accounts/${id}/${account.enabled ? "suspend" : "resume"}`,
                })}
              />
            </section>
            <section class="card" aria-labelledby="wallet-heading">
              <h2 id="wallet-heading">Wallet</h2>
              <WalletFacts account={account} check={check} money={money} />
              <CopyAsCurl
                id="curl-verify"
                curl={adminCurl(base, {
                  method: "GET",
                  path: `/admin/accounts/${id}/ledger/verify`,
                })}
              />
            </section>
          </>
        );
      }
      case "wallet": {
        const check = await verifyLedger(gateway.kv, account.wallet_id);
        const ledger = await gateway.ledger.list(account.wallet_id, { limit: 20, order: "desc" });
        const keys = await gateway.keys.views(await gateway.accounts.keyIdsOf(id));
        return (
          <>
            <CreditCard
              action={`/console/accounts/${id}/credit`}
              apiPath={`/admin/accounts/${id}/credit`}
              session={session}
              money={money}
              base={base}
            />
            <section class="card" aria-labelledby="ledger-heading">
              <h2 id="ledger-heading">Wallet ledger</h2>
              <LedgerCheck check={check} money={money} />
              <p class="muted">The last 20 entries, newest first.</p>
              <WalletLedger entries={ledger.data} keys={keys} money={money} />
              <CopyAsCurl
                id="curl-ledger"
                curl={adminCurl(base, {
                  method: "GET",
                  path: `/admin/accounts/${id}/ledger?order=desc&limit=20`,
                })}
              />
            </section>
          </>
        );
      }
      case "keys": {
        const keys = await gateway.keys.views(await gateway.accounts.keyIdsOf(id));
        return (
          <section class="card" aria-labelledby="keys-heading">
            <h2 id="keys-heading">Keys</h2>
            <p>
              Every key pays from this wallet.{" "}
              <a href={`/console/keys/new?account_id=${id}`}>New key in this account</a>
            </p>
            <AccountKeys keys={keys} money={money} />
          </section>
        );
      }
      case "settings":
        return (
          <section class="card" aria-labelledby="edit-heading">
            <h2 id="edit-heading">Edit</h2>
            <EditForm c={c} account={account} />
            <CopyAsCurl
              id="curl-edit"
              curl={adminCurl(base, {
                method: "PATCH",
                path: `/admin/accounts/${id}`,
                body: {
                  name: account.name,
                  group: account.group,
                  credit_limit: account.credit_limit,
                  unlimited: account.unlimited,
                },
              })}
            />
          </section>
        );
    }
  };
  return renderPage(
    c,
    <>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <SectionTabs path={`/console/accounts/${id}`} tabs={ACCOUNT_TABS} current={tab} />
      {await sections()}
    </>,
    { title: `Account ${account.name}`, copyButtons: true, status: problem ? 400 : 200 },
  );
}

/**
 * Validates and runs an audited account change from a form; a bad input (400) or a refused one
 * (409, e.g. a credit past the largest balance) shows the page again with the API's message.
 */
async function changeAccount<T>(
  gateway: Gateway,
  { c, id, tab, change }: {
    c: ConsoleContext;
    id: string;
    /** The tab of the form, shown again after the change. */
    tab: AccountTab;
    change: () => ConsoleChange<T>;
  },
) {
  try {
    await consoleChange(gateway, { c, change: change() });
  } catch (error) {
    if (error instanceof GatewayError && (error.status === 400 || error.status === 409)) {
      return accountDetailPage(gateway, { c, id, tab, problem: error.message });
    }
    throw error;
  }
  return c.redirect(tabHref(`/console/accounts/${id}`, ACCOUNT_TABS, tab), 303);
}

function accountChange<T>(
  gateway: Gateway,
  id: string,
  change: Pick<ConsoleChange<T>, "route" | "method" | "apply" | "outcomeOf">,
): ConsoleChange<T> {
  return {
    ...change,
    target: { kind: "account", id },
    readTarget: (target) => gateway.accounts.get(target),
  };
}

export function accountDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/accounts/:id", (c) => accountDetailPage(gateway, { c, id: accountIdOf(c) }));
  app.post("/console/accounts/:id/credit", async (c) => {
    const id = accountIdOf(c);
    const form = await readForm(c);
    return changeAccount(gateway, {
      c,
      id,
      tab: "wallet",
      change: () => {
        const input = validate(creditInputSchema, creditInputOf(form));
        return accountChange(gateway, id, {
          route: "/admin/accounts/:id/credit",
          method: "POST",
          apply: () => gateway.accounts.credit(id, input.amount, { note: input.note }),
          outcomeOf: () => ({ status: 201 }),
        });
      },
    });
  });
  app.post("/console/accounts/:id/edit", async (c) => {
    const id = accountIdOf(c);
    const form = await readForm(c);
    return changeAccount(gateway, {
      c,
      id,
      tab: "settings",
      change: () => {
        const patch = validate(accountPatchSchema, accountPatchOf(form));
        return accountChange(gateway, id, {
          route: "/admin/accounts/:id",
          method: "PATCH",
          apply: () => gateway.accounts.update(id, patch),
        });
      },
    });
  });
  app.post("/console/accounts/:id/suspend", async (c) => {
    const id = accountIdOf(c);
    const form = await readForm(c);
    if (form.confirm !== "yes") {
      return accountDetailPage(gateway, {
        c,
        id,
        tab: "account",
        problem: "Tick the box to confirm the suspension; nothing was changed",
      });
    }
    return changeAccount(gateway, {
      c,
      id,
      tab: "account",
      change: () =>
        accountChange(gateway, id, {
          route: "/admin/accounts/:id/suspend",
          method: "POST",
          apply: () => gateway.accounts.update(id, { enabled: false }),
        }),
    });
  });
  app.post("/console/accounts/:id/resume", (c) => {
    const id = accountIdOf(c);
    return changeAccount(gateway, {
      c,
      id,
      tab: "account",
      change: () =>
        accountChange(gateway, id, {
          route: "/admin/accounts/:id/resume",
          method: "POST",
          apply: () => gateway.accounts.update(id, { enabled: true }),
        }),
    });
  });
  return app;
}
