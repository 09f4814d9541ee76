/**
 * What the operator's account page shows besides its forms: the wallet (balance, floor and the
 * ledger check), the wallet's last ledger entries with the key each names, and the account's
 * keys with a link to each key's requests.
 */

import type { Gateway } from "../../core/gateway.ts";
import type { PublicAccount } from "../../core/accounts/account_schema.ts";
import type { LedgerEntry } from "../../core/billing/ledger_records.ts";
import type { LedgerVerification } from "../../core/billing/ledger_audit.ts";
import { DataTable } from "./data_table.tsx";
import { Deleted, LedgerRef } from "./name_links.tsx";
import type { ConsoleMoney } from "./money.tsx";

type KeyView = Awaited<ReturnType<Gateway["keys"]["get"]>>;

/** The ledger check as one line: Σ entries = balance ✓, or what differs. */
export function LedgerCheck(
  { check, money }: { check: LedgerVerification; money: ConsoleMoney },
) {
  return (
    <p class={check.ok ? "ok" : "bad"}>
      {check.ok
        ? <>Σ entries = balance ✓ ({check.entries} entries, {money.amount(check.balance)})</>
        : (
          <>
            Σ entries ≠ balance ✗ (entries {money.amount(check.entries_sum)}, balance{" "}
            {money.amount(check.balance)})
          </>
        )}
    </p>
  );
}

export function WalletFacts(
  { account, check, money }: {
    account: PublicAccount;
    check: LedgerVerification;
    money: ConsoleMoney;
  },
) {
  return (
    <>
      <dl class="facts">
        <dt>Balance</dt>
        <dd>
          <span class={account.balance < 0 ? "bad" : undefined}>
            {money.amount(account.balance)}
          </span>
        </dd>
        <dt>Floor</dt>
        <dd>
          {account.unlimited
            ? "unlimited (no floor)"
            : <>{money.amount(-account.credit_limit)} (credit limit)</>}
        </dd>
        <dt>Wallet</dt>
        <dd>
          <code>{account.wallet_id}</code>
          {account.wallet_id === account.id
            ? null
            : <span class="muted">(the ledger of the key it was made for)</span>}
        </dd>
        <dt>Open holds</dt>
        <dd>{check.holds_open} ({money.amount(check.held_open)})</dd>
        <dt>Budget leases</dt>
        <dd>{check.leases_open} ({money.amount(check.leased_open)})</dd>
      </dl>
      <LedgerCheck check={check} money={money} />
    </>
  );
}

function KeyCell({ keyId, names }: { keyId: string | null; names: Map<string, string> }) {
  if (keyId === null) return <span class="muted">the wallet</span>;
  const name = names.get(keyId);
  return name === undefined
    ? <Deleted id={keyId} />
    : <a href={`/console/keys/${keyId}`}>{name}</a>;
}

/** The wallet's entries, newest first, with the running balance and the key each names. */
export function WalletLedger(
  { entries, keys, money }: { entries: LedgerEntry[]; keys: KeyView[]; money: ConsoleMoney },
) {
  const names = new Map(keys.map((key) => [key.id, key.name]));
  return (
    <DataTable
      rows={entries}
      empty="The wallet has no entries yet."
      columns={[
        { header: "When (UTC)", cell: (entry) => entry.at.replace("T", " ").slice(0, 19) },
        { header: "Type", cell: (entry) => entry.type },
        {
          header: "Amount",
          cell: (entry) => money.amount(entry.amount),
          cellClass: (entry) => entry.amount < 0 ? "bad" : undefined,
        },
        { header: "Balance after", cell: (entry) => money.amount(entry.balance_after) },
        { header: "Key", cell: (entry) => <KeyCell keyId={entry.key_id} names={names} /> },
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
  );
}

/** The account's keys, each linked to its page and to its requests. */
export function AccountKeys({ keys, money }: { keys: KeyView[]; money: ConsoleMoney }) {
  return (
    <DataTable
      rows={keys}
      empty="The account has no key."
      columns={[
        { header: "Name", cell: (key) => <a href={`/console/keys/${key.id}`}>{key.name}</a> },
        { header: "Prefix", cell: (key) => <code>{key.prefix}…</code> },
        {
          header: "State",
          cell: (key) => key.enabled ? "enabled" : <span class="bad">disabled</span>,
        },
        { header: "Spent today", cell: (key) => money.amount(key.spend_today) },
        { header: "Last used", cell: (key) => key.last_used_at ?? "never" },
        {
          header: "Requests",
          cell: (key) => (
            <a href={`/console/requests?key=${key.id}`} aria-label={`Requests of ${key.name}`}>
              Requests
            </a>
          ),
        },
      ]}
    />
  );
}
