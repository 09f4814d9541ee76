/**
 * Operator's key detail, in tabs (`?tab=`, links: no script): facts with the ledger check
 * (Σ entries = balance) and Disable/Enable; usage for 30 days with recent requests and tasks;
 * the ledger with Add credit; Edit, Rotate and Delete; SDK snippets; and the curl of each action. Changes go through the same service calls as /admin/keys and are audited
 * as the console session's.
 */

import { walletOf } from "../../../core/billing/ledger.ts";
import { creditInputOf } from "../account_form.ts";
import { currencyOfUnits } from "../currency_units.ts";
import { Hono } from "hono";
import { verifyLedger } from "../../../core/billing/ledger_audit.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import type { PublicAccount } from "../../../core/accounts/account_schema.ts";
import {
  creditInputSchema,
  keyPatchSchema,
  rotateInputSchema,
} from "../../../core/keys/key_schema.ts";
import { keyNotFound } from "../../admin/shared.ts";
import { hasIdShape } from "../../params.ts";
import { validate } from "../../validation.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { readForm } from "../form_body.ts";
import { KeyActivitySections, readKeyActivity } from "../key_activity.tsx";
import { KeyFacts, type KeyView, SdkSnippets } from "../key_facts.tsx";
import { IP_ALLOWLIST_HINT, keyPatchOf } from "../key_form.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { SectionTabs, type Tab, tabHref, tabOf } from "../section_nav.tsx";
import { KeyName, LedgerRef, nameBook } from "../name_links.tsx";
import { adminCurl } from "../snippets.ts";
import { CreditCard } from "../credit_card.tsx";
import { LedgerCheck } from "../account_sections.tsx";

function keyIdOf(c: ConsoleContext): string {
  const id = c.req.param("id") ?? "";
  if (!hasIdShape(id, "key")) throw keyNotFound(id.slice(0, 80));
  return id;
}

function EditForm({ c, keyView }: { c: ConsoleContext; keyView: KeyView }) {
  const field = (name: string, label: string, value: string, type = "text") => (
    <Field name={name} id={`edit-${name}`} label={label} type={type} value={value} />
  );
  const allowlist = keyView.ip_allowlist;
  const currency = c.get("money").format.currency;
  const capText = (units: number | undefined) => units === undefined ? "" : currencyOfUnits(units);
  return (
    <form method="post" action={`/console/keys/${keyView.id}/edit`}>
      <CsrfField session={c.get("session")} />
      <div class="fields">
        {field("name", "Name", keyView.name)}
        <Field
          name="group"
          id="edit-group"
          label="Group"
          value={keyView.group}
          hint={keyView.account_id ? "the account's: changing it changes all its keys" : undefined}
        />
        {field("models", "Models", keyView.models?.join(", ") ?? "")}
        <Field
          name="ip_allowlist"
          id="edit-ip_allowlist"
          label="IP allowlist"
          value={allowlist?.join("\n") ?? ""}
          rows={Math.min(10, Math.max(3, allowlist?.length ?? 0))}
          hint={IP_ALLOWLIST_HINT}
        />
        {field(
          "expires_at",
          "Expires (UTC)",
          keyView.expires_at?.slice(0, 16) ?? "",
          "datetime-local",
        )}
        {field("rpm", "Requests per minute (RPM)", String(keyView.rpm ?? ""), "number")}
        {field("tpm", "Tokens per minute (TPM)", String(keyView.tpm ?? ""), "number")}
        {field("cap_day", `Spend cap per day (${currency})`, capText(keyView.spend_limits?.day))}
        {field("cap_week", `Spend cap per week (${currency})`, capText(keyView.spend_limits?.week))}
        {field(
          "cap_month",
          `Spend cap per month (${currency})`,
          capText(keyView.spend_limits?.month),
        )}
      </div>
      <p>
        <button type="submit">Save</button>
      </p>
    </form>
  );
}

/** Whose wallet the key pays from: its balance, group and limit are the account's. */
function KeyAccount({ account }: { account: PublicAccount }) {
  return (
    <p class="notice">
      Account: <a href={`/console/accounts/${account.id}`}>{account.name}</a>{" "}
      <code>{account.id}</code>
      {account.enabled ? null : <span class="bad">(suspended)</span>}. The balance below is the
      account's wallet, shared by its{" "}
      {account.keys === 1 ? "1 key" : `${account.keys} keys`}; group and credit limit are the
      account's, and Add credit adds to that wallet.
    </p>
  );
}

export const KEY_TABS = [
  { id: "key", label: "Key" },
  { id: "usage", label: "Usage" },
  { id: "ledger", label: "Ledger and credit" },
  { id: "settings", label: "Settings" },
  { id: "sdk", label: "Use the key" },
] as const satisfies readonly Tab[];

export type KeyTab = typeof KEY_TABS[number]["id"];

/**
 * A key's page, one tab at a time (`?tab=`): the facts with Disable/Enable; usage with recent
 * requests and tasks; the ledger with Add credit; Edit, Rotate and Delete; the SDK snippets.
 */
async function keyDetailPage(
  gateway: Gateway,
  { c, id, problem, tab: shown }: {
    c: ConsoleContext;
    id: string;
    problem?: string;
    /** The tab of the form that had the problem; else the URL's. */
    tab?: KeyTab;
  },
) {
  const tab = shown ?? tabOf(c.get("url"), KEY_TABS);
  const keyView = await gateway.keys.get(id);
  const account = keyView.account_id ? await gateway.accounts.get(keyView.account_id) : null;
  const base = baseUrlOf(gateway, c.get("url"));
  const session = c.get("session");
  const money = c.get("money");
  const sections = async () => {
    switch (tab) {
      case "key": {
        const check = await verifyLedger(gateway.kv, walletOf(keyView));
        return (
          <section class="card" aria-labelledby="facts-heading">
            <h2 id="facts-heading">{keyView.name}</h2>
            {account ? <KeyAccount account={account} /> : null}
            <KeyFacts keyView={keyView} money={money} />
            <LedgerCheck check={check} money={money} />
            <form method="post" action={`/console/keys/${id}/enabled`} class="row">
              <CsrfField session={session} />
              {keyView.enabled
                ? <button type="submit" class="danger" name="enabled" value="false">Disable</button>
                : <button type="submit" name="enabled" value="true">Enable</button>}
            </form>
            <CopyAsCurl
              id="curl-enabled"
              curl={adminCurl(base, {
                method: "PATCH",
                path: `/admin/keys/${id}`,
                body: { enabled: !keyView.enabled },
              })}
            />
          </section>
        );
      }
      case "usage": {
        const activity = await readKeyActivity(gateway, id);
        const book = await nameBook(gateway, {});
        return (
          <KeyActivitySections
            activity={activity}
            keyId={id}
            base={base}
            money={money}
            book={book}
          />
        );
      }
      case "ledger": {
        const check = await verifyLedger(gateway.kv, walletOf(keyView));
        const ledger = await gateway.ledger.list(walletOf(keyView), { limit: 20, order: "desc" });
        const book = await nameBook(gateway, { keys: ledger.data.map((entry) => entry.key_id) });
        return (
          <>
            <CreditCard
              action={`/console/keys/${id}/credit`}
              apiPath={`/admin/keys/${id}/credit`}
              session={session}
              money={money}
              base={base}
            />
            <section class="card" aria-labelledby="ledger-heading">
              <h2 id="ledger-heading">{account ? "Ledger of the account's wallet" : "Ledger"}</h2>
              <LedgerCheck check={check} money={money} />
              <DataTable
                rows={ledger.data}
                columns={[
                  { header: "When", cell: (entry) => entry.at },
                  { header: "Type", cell: (entry) => entry.type },
                  { header: "Amount", cell: (entry) => money.amount(entry.amount) },
                  { header: "Balance after", cell: (entry) => money.amount(entry.balance_after) },
                  account && {
                    header: "Key",
                    cell: (entry) =>
                      entry.key_id
                        ? <KeyName id={entry.key_id} book={book} />
                        : <span class="muted">the wallet</span>,
                  },
                  {
                    header: "Reference",
                    cell: (entry) => (
                      <>
                        <LedgerRef ref={entry.ref} /> {entry.note ?? ""}
                      </>
                    ),
                  },
                ]}
              />
              <CopyAsCurl
                id="curl-verify"
                curl={adminCurl(base, { method: "GET", path: `/admin/keys/${id}/ledger/verify` })}
              />
            </section>
          </>
        );
      }
      case "settings":
        return (
          <>
            <section class="card" aria-labelledby="edit-heading">
              <h2 id="edit-heading">Edit</h2>
              <EditForm c={c} keyView={keyView} />
              <CopyAsCurl
                id="curl-edit"
                curl={adminCurl(base, {
                  method: "PATCH",
                  path: `/admin/keys/${id}`,
                  body: { name: keyView.name, rpm: keyView.rpm },
                })}
              />
            </section>
            <section class="card" aria-labelledby="rotate-heading">
              <h2 id="rotate-heading">Rotate</h2>
              <p>
                Gives the key a new secret, shown once; id, balance, ledger and settings stay. The
                old secret keeps working for the grace period.
              </p>
              <form method="post" action={`/console/keys/${id}/rotate`} class="row">
                <CsrfField session={session} />
                <Field
                  name="grace_seconds"
                  label="Grace period (seconds)"
                  type="number"
                  value="86400"
                  min="0"
                />
                <div>
                  <button type="submit">Rotate</button>
                </div>
              </form>
              <CopyAsCurl
                id="curl-rotate"
                curl={adminCurl(base, {
                  method: "POST",
                  path: `/admin/keys/${id}/rotate`,
                  body: { grace_seconds: 86_400 },
                })}
              />
            </section>
            <section class="card" aria-labelledby="delete-heading">
              <h2 id="delete-heading">Delete</h2>
              <form method="post" action={`/console/keys/${id}/delete`} class="row">
                <CsrfField session={session} />
                <div>
                  <input id="confirm" name="confirm" type="checkbox" value="yes" required />{" "}
                  <label for="confirm" class="inline">
                    Delete this key: its secret stops working; balance and ledger stay for the
                    record
                  </label>
                </div>
                <div>
                  <button type="submit" class="danger">Delete</button>
                </div>
              </form>
              <CopyAsCurl
                id="curl-delete"
                curl={adminCurl(base, { method: "DELETE", path: `/admin/keys/${id}` })}
              />
            </section>
          </>
        );
      case "sdk":
        return <SdkSnippets baseUrl={base} />;
    }
  };
  return renderPage(
    c,
    <>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <SectionTabs path={`/console/keys/${id}`} tabs={KEY_TABS} current={tab} />
      {await sections()}
    </>,
    { title: `Key ${keyView.name}`, copyButtons: true, status: problem ? 400 : 200 },
  );
}

/**
 * Runs a key change from a form on `tab`; a 400 re-renders that tab with the problem, else it
 * goes back to the tab.
 */
async function changeKey(
  gateway: Gateway,
  { c, id, tab, change }: {
    c: ConsoleContext;
    id: string;
    tab: KeyTab;
    change: () => Promise<unknown>;
  },
) {
  try {
    await change();
  } catch (error) {
    if (error instanceof GatewayError && error.status === 400) {
      return keyDetailPage(gateway, { c, id, tab, problem: error.message });
    }
    throw error;
  }
  return c.redirect(tabHref(`/console/keys/${id}`, KEY_TABS, tab), 303);
}

function patchKey(
  gateway: Gateway,
  { c, id, patch }: { c: ConsoleContext; id: string; patch: unknown },
) {
  const valid = validate(keyPatchSchema, patch);
  return consoleChange(gateway, {
    c,
    change: {
      route: "/admin/keys/:id",
      method: "PATCH",
      target: { kind: "key", id },
      readTarget: (target) => gateway.keys.get(target),
      apply: () => gateway.keys.update(id, valid),
    },
  });
}

export function keyDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/keys/:id", (c) => keyDetailPage(gateway, { c, id: keyIdOf(c) }));
  app.post("/console/keys/:id/enabled", async (c) => {
    const id = keyIdOf(c);
    const form = await readForm(c);
    return changeKey(gateway, {
      c,
      id,
      tab: "key",
      change: () => patchKey(gateway, { c, id, patch: { enabled: form.enabled === "true" } }),
    });
  });
  app.post("/console/keys/:id/edit", async (c) => {
    const id = keyIdOf(c);
    const form = await readForm(c);
    return changeKey(gateway, {
      c,
      id,
      tab: "settings",
      change: () => patchKey(gateway, { c, id, patch: keyPatchOf(form, { clearEmpty: true }) }),
    });
  });
  app.post("/console/keys/:id/credit", async (c) => {
    const id = keyIdOf(c);
    const form = await readForm(c);
    return changeKey(gateway, {
      c,
      id,
      tab: "ledger",
      change: async () => {
        const input = validate(creditInputSchema, creditInputOf(form));
        await gateway.keys.get(id);
        return consoleChange(gateway, {
          c,
          change: {
            route: "/admin/keys/:id/credit",
            method: "POST",
            target: { kind: "key", id },
            readTarget: (target) => gateway.keys.get(target),
            apply: async () =>
              gateway.ledger.credit(walletOf(await gateway.keys.get(id)), input.amount, {
                note: input.note,
              }),
            outcomeOf: () => ({ status: 201 }),
          },
        });
      },
    });
  });
  app.post("/console/keys/:id/rotate", async (c) => {
    const id = keyIdOf(c);
    const form = await readForm(c);
    const grace = form.grace_seconds?.trim() ?? "";
    let input;
    try {
      input = validate(
        rotateInputSchema,
        grace === "" ? {} : {
          grace_seconds: /^\d+$/.test(grace) ? Number(grace) : grace,
        },
      );
    } catch (error) {
      if (error instanceof GatewayError && error.status === 400) {
        return keyDetailPage(gateway, { c, id, tab: "settings", problem: error.message });
      }
      throw error;
    }
    const rotated = await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/keys/:id/rotate",
        method: "POST",
        target: { kind: "key", id },
        readTarget: (target) => gateway.keys.get(target),
        apply: () => gateway.keys.rotate(id, { graceSeconds: input.grace_seconds }),
      },
    });
    await gateway.consoleSessions.putFlash(
      c.get("session").id,
      { owner: id, secret: String(rotated.key) },
    );
    return c.redirect(`/console/keys/${id}/created`, 303);
  });
  app.post("/console/keys/:id/delete", async (c) => {
    const id = keyIdOf(c);
    const form = await readForm(c);
    if (form.confirm !== "yes") {
      return keyDetailPage(gateway, {
        c,
        id,
        tab: "settings",
        problem: "Tick the box to confirm the deletion",
      });
    }
    await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/keys/:id",
        method: "DELETE",
        target: { kind: "key", id },
        readTarget: (target) => gateway.keys.get(target),
        apply: () => gateway.keys.delete(id),
        outcomeOf: () => ({ status: 204 }),
      },
    });
    return c.redirect("/console/keys", 303);
  });
  return app;
}
