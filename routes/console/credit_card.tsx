/**
 * The "Add credit" card of a wallet's page (an account's, a key's): an amount in the console's
 * currency (negative takes money back) and a note, with the admin API call it makes.
 */

import type { ConsoleSession } from "../../core/console/session_store.ts";
import { Field } from "./field.tsx";
import { CopyAsCurl, CsrfField } from "./layout.tsx";
import type { ConsoleMoney } from "./money.tsx";
import { adminCurl } from "./snippets.ts";

export function CreditCard(
  { action, apiPath, session, money, base }: {
    /** Where the form posts (the console route). */
    action: string;
    /** The admin API route the curl shows. */
    apiPath: string;
    session: ConsoleSession;
    money: ConsoleMoney;
    /** The gateway's base URL, for the curl. */
    base: string;
  },
) {
  return (
    <section class="card" aria-labelledby="credit-heading">
      <h2 id="credit-heading">Add credit</h2>
      <form method="post" action={action} class="row">
        <CsrfField session={session} />
        <Field
          name="amount"
          label={`Amount (${money.format.currency})`}
          inputmode="decimal"
          required
          hint="e.g. 10.00; a negative amount takes money back"
        />
        <Field name="note" label="Note" />
        <div>
          <button type="submit">Add credit</button>
        </div>
      </form>
      <CopyAsCurl
        id="curl-credit"
        curl={adminCurl(base, {
          method: "POST",
          path: apiPath,
          body: { amount: 1_000_000, note: "top-up" },
        })}
      />
    </section>
  );
}
