/**
 * The account's wallet for members: balance and floor, the ledger newest first with the balance
 * after each entry and the key it names, and Redeem a code (owners and members), audited as the member's.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import { AccountArea } from "../../../core/account_area/account_area.ts";
import type { AccountActor } from "../../../core/account_area/actor.ts";
import type { Gateway } from "../../../core/gateway.ts";
import type { ConsoleContext, ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CsrfField } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { accountActorOf } from "../member_actor.ts";
import { memberChange } from "../member_change.ts";
import { renderPage } from "../render.tsx";
import { floorText } from "../wallet_floor.ts";
import { MemberKeyName } from "../name_links.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

type Entry = Awaited<ReturnType<AccountArea["ledger"]>>["data"][number];

function Reference({ entry }: { entry: Entry }) {
  const ref = /^req_[0-9A-Za-z]+$/.test(entry.ref)
    ? <a href={`/console/account/requests/${entry.ref}`}>{entry.ref}</a>
    : <code>{entry.ref}</code>;
  return <>{ref} {entry.note ?? ""}</>;
}

function LedgerRows(
  { rows, keyNames, money }: {
    rows: Entry[];
    keyNames: ReadonlyMap<string, string>;
    money: ConsoleMoney;
  },
) {
  return (
    <DataTable
      rows={rows}
      empty="No entry yet."
      columns={[
        { header: "When", cell: (entry) => entry.at },
        { header: "Type", cell: (entry) => entry.type },
        {
          header: "Amount",
          cell: (entry) => money.amount(entry.amount),
          cellClass: (entry) => entry.amount < 0 ? "bad" : entry.amount > 0 ? "ok" : undefined,
        },
        { header: "Balance after", cell: (entry) => money.amount(entry.balance_after) },
        {
          header: "Key",
          cell: (entry) => <MemberKeyName id={entry.key_id} names={keyNames} />,
        },
        { header: "Reference", cell: (entry) => <Reference entry={entry} /> },
      ]}
    />
  );
}

interface Notice {
  text: string;
  error?: boolean;
}

export function memberWalletPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const area = new AccountArea(gateway);

  async function walletPage(
    c: ConsoleContext,
    actor: AccountActor,
    notice?: Notice,
    status?: ContentfulStatusCode,
  ) {
    const url = c.get("url");
    const account = await area.account(actor);
    const cursor = url.searchParams.get("cursor") || undefined;
    const ledger = await area.ledger(actor, { limit: 50, order: "desc", cursor });
    const keyNames = new Map((await area.keys(actor)).map((key) => [key.id, key.name]));
    // The next page's link carries the list's query, not the notice of a redemption.
    const pageUrl = new URL(url);
    pageUrl.searchParams.delete("redeemed");
    return renderPage(
      c,
      <>
        {notice
          ? (
            <p class={notice.error ? "error" : "notice"} role={notice.error ? "alert" : "status"}>
              {notice.text}
            </p>
          )
          : null}
        <section class="card" aria-labelledby="wallet-heading">
          <h2 id="wallet-heading">Wallet of {account.name}</h2>
          <dl class="facts">
            <dt>Balance</dt>
            <dd id="balance">{c.get("money").amount(account.balance)}</dd>
            <dt>Floor</dt>
            <dd>{floorText(account, c.get("money"))}</dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="redeem-heading">
          <h2 id="redeem-heading">Redeem a code</h2>
          <form method="post" action="/console/account/wallet/redeem" class="row">
            <CsrfField session={c.get("session")} />
            <Field name="code" label="Code" autocomplete="off" required />
            <div>
              <button type="submit">Redeem</button>
            </div>
          </form>
        </section>
        <section class="card" aria-labelledby="ledger-heading">
          <h2 id="ledger-heading">Ledger</h2>
          <p class="muted">Newest first; each entry with the balance it left.</p>
          <LedgerRows rows={ledger.data} keyNames={keyNames} money={c.get("money")} />
          {ledger.cursor
            ? (
              <p>
                <a href={`/console/account/wallet${listQuery(pageUrl, ledger.cursor)}`} rel="next">
                  Next page
                </a>
              </p>
            )
            : null}
        </section>
      </>,
      { title: "Wallet", status },
    );
  }

  app.get("/console/account/wallet", async (c) => {
    const redeemed = c.get("url").searchParams.get("redeemed") ?? "";
    const notice = /^\d{1,15}$/.test(redeemed)
      ? {
        text: `The code is redeemed: ${c.get("money").full(Number(redeemed))} added to the wallet.`,
      }
      : undefined;
    return await walletPage(c, await accountActorOf(gateway, c), notice);
  });
  app.post("/console/account/wallet/redeem", async (c) => {
    const actor = await accountActorOf(gateway, c);
    const code = (await readForm(c)).code ?? "";
    let redeemed;
    try {
      redeemed = await memberChange(gateway, {
        c,
        actor,
        change: {
          route: "/console/account/wallet/redeem",
          method: "POST",
          target: { kind: "account", id: actor.accountId },
          apply: () => area.redeem(actor, code),
          outcomeOf: (result) => ({ status: 201, returned: result }),
        },
      });
    } catch (error) {
      const problem = formProblemOf(error);
      return await walletPage(c, actor, { text: problem.message, error: true }, problem.status);
    }
    return c.redirect(`/console/account/wallet?redeemed=${redeemed.amount}`, 303);
  });
  return app;
}
