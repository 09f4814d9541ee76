/**
 * Operator's page of one redemption batch: its facts and the count of its codes in each state,
 * Disable the batch (a box to tick), Export CSV (the admin export's content, never the codes), and
 * its codes with their states (filter by state, paged) with Disable on each unused one. Changes go
 * through the same service calls as the admin routes and are audited as theirs.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import type { Gateway } from "../../../core/gateway.ts";
import { codesCsv } from "../../../core/accounts/redemption_csv.ts";
import { CODE_STATES, type CodeView } from "../../../core/accounts/redemption_records.ts";
import {
  batchNotFound,
  type BatchSummary,
  codeIdNotFound,
} from "../../../core/accounts/redemption_store.ts";
import { GatewayError } from "../../../core/errors.ts";
import {
  hasIdShape,
  ID_SHAPES,
  invalidQueryParameter,
  queryChoice,
  queryValue,
} from "../../params.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { renderPage } from "../render.tsx";
import { adminCurl } from "../snippets.ts";
import { AccountName, type NameBook, nameBook } from "../name_links.tsx";
import { batchPath, batchStateOf } from "./redemption_batches.tsx";

/** Codes a page of the batch's code list. */
const CODES_PER_PAGE = 100;

function batchIdOf(c: ConsoleContext): string {
  const id = c.req.param("id") ?? "";
  if (!hasIdShape(id, "redemptionBatch")) throw batchNotFound(id.slice(0, 80));
  return id;
}

function BatchFacts({ batch, money }: { batch: BatchSummary; money: ConsoleMoney }) {
  const state = batchStateOf(batch);
  return (
    <dl class="facts">
      <dt>Id</dt>
      <dd>
        <code>{batch.id}</code>
      </dd>
      <dt>State</dt>
      <dd>
        {state === "open" ? "open" : <span class="bad">{state}</span>}
        {batch.disabled_at ? ` since ${batch.disabled_at}` : ""}
      </dd>
      <dt>Amount</dt>
      <dd>{money.amount(batch.amount)} a code</dd>
      <dt>Codes</dt>
      <dd>
        {batch.count}: {batch.states.unused} unused, {batch.states.redeemed} redeemed,{" "}
        {batch.states.disabled} disabled, {batch.states.expired} expired
      </dd>
      <dt>Expires</dt>
      <dd>{batch.expires_at ?? "never"}</dd>
      <dt>Group</dt>
      <dd>{batch.group ?? "any"}</dd>
      <dt>Created</dt>
      <dd>{batch.created_at}</dd>
    </dl>
  );
}

function DisableBatchForm({ c, batch }: { c: ConsoleContext; batch: BatchSummary }) {
  if (batch.disabled_at) return null;
  return (
    <form method="post" action={`${batchPath(batch.id)}/disable`} class="row">
      <CsrfField session={c.get("session")} />
      <div>
        <input id="confirm-disable" name="confirm" type="checkbox" value="yes" required />{" "}
        <label for="confirm-disable" class="inline">
          Disable this batch: none of its {batch.states.unused}{" "}
          unused codes may be redeemed any more; redeemed codes stay redeemed
        </label>
      </div>
      <div>
        <button type="submit" class="danger">Disable batch</button>
      </div>
    </form>
  );
}

function CodeRows(
  { c, batchId, codes, book }: {
    c: ConsoleContext;
    batchId: string;
    codes: CodeView[];
    book: NameBook;
  },
) {
  const session = c.get("session");
  return (
    <DataTable
      rows={codes}
      empty="No code in this state."
      rowId={(code) => code.id}
      columns={[
        { header: "Id", cell: (code) => <code>{code.id}</code> },
        {
          header: "State",
          cell: (code) => code.state,
          cellClass: (code) =>
            code.state === "disabled" || code.state === "expired" ? "bad" : undefined,
        },
        {
          header: "Redeemed by",
          cell: (code) => code.redeemed_by ? <AccountName id={code.redeemed_by} book={book} /> : "",
        },
        { header: "Redeemed", cell: (code) => code.redeemed_at ?? "" },
        { header: "Disabled", cell: (code) => code.disabled_at ?? "" },
        {
          header: "Action",
          cell: (code) =>
            code.state === "unused"
              ? (
                <form method="post" action={`${batchPath(batchId)}/codes/${code.id}/disable`}>
                  <CsrfField session={session} />
                  <button type="submit" class="quiet" aria-label={`Disable code ${code.id}`}>
                    Disable
                  </button>
                </form>
              )
              : null,
        },
      ]}
    />
  );
}

function StateFilter({ url, id }: { url: URL; id: string }) {
  return (
    <form method="get" action={batchPath(id)} class="row" role="search">
      <Field
        name="state"
        label="State"
        value={url.searchParams.get("state") ?? ""}
        options={[["", "Any"], ...CODE_STATES.map((state) => [state, state] as const)]}
      />
      <div>
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}

function codeQuery(url: URL) {
  const state = queryChoice(url, "state", { allowed: CODE_STATES, fallback: undefined });
  const after = queryValue(url, "cursor") || undefined;
  if (after !== undefined && !hasIdShape(after, "redemptionCode")) {
    throw invalidQueryParameter(
      "cursor",
      `must be a cursor this list gave (${ID_SHAPES.redemptionCode.looksLike})`,
    );
  }
  return { state, after, limit: CODES_PER_PAGE };
}

async function batchPage(
  gateway: Gateway,
  { c, id, problem, status }: {
    c: ConsoleContext;
    id: string;
    problem?: string;
    status?: 400 | 409;
  },
) {
  const url = c.get("url");
  const store = gateway.redemptions.store;
  const batch = await store.summary(id);
  const query = codeQuery(url);
  const page = await store.codes(id, query);
  const book = await nameBook(gateway, { accounts: page.data.map((code) => code.redeemed_by) });
  const base = baseUrlOf(gateway, url);
  return renderPage(
    c,
    <>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <section class="card" aria-labelledby="facts-heading">
        <h2 id="facts-heading">{batch.name}</h2>
        <BatchFacts batch={batch} money={c.get("money")} />
        <p>
          <a class="button" href={`${batchPath(id)}/codes.csv`} download={`${id}-codes.csv`}>
            Export CSV
          </a>{" "}
          <span class="muted">(id, state, redeemed by, redeemed at; never the codes)</span>
        </p>
        <p>
          <a href={`/console/audit?target_kind=redemption_batch&target_id=${id}`}>
            Changes to this batch
          </a>{" "}
          (the audit log)
        </p>
        <DisableBatchForm c={c} batch={batch} />
        <CopyAsCurl
          id="curl-disable"
          curl={adminCurl(base, {
            method: "POST",
            path: `/admin/redemption-batches/${id}/disable`,
          })}
        />
      </section>
      <section class="card" aria-labelledby="codes-heading">
        <h2 id="codes-heading">Codes</h2>
        <StateFilter url={url} id={id} />
        <CodeRows c={c} batchId={id} codes={page.data} book={book} />
        {page.cursor
          ? (
            <p>
              <a href={`${batchPath(id)}${listQuery(url, page.cursor)}`} rel="next">Next page</a>
            </p>
          )
          : null}
        <CopyAsCurl
          id="curl-codes"
          curl={adminCurl(base, {
            method: "GET",
            path: `/admin/redemption-batches/${id}/codes${listQuery(url)}`,
          })}
        />
      </section>
    </>,
    { title: `Batch ${batch.name}`, status: problem ? status ?? 400 : 200, copyButtons: true },
  );
}

/** A refusal the batch page says (400, 409 `code_redeemed`); anything else goes on up. */
function refusalOf(error: unknown): { message: string; status: 400 | 409 } {
  if (error instanceof GatewayError && (error.status === 400 || error.status === 409)) {
    return { message: error.message, status: error.status };
  }
  throw error;
}

export function batchDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const store = gateway.redemptions.store;
  app.get("/console/redemption-codes/:id", (c) => batchPage(gateway, { c, id: batchIdOf(c) }));
  app.get("/console/redemption-codes/:id/codes.csv", async (c) => {
    const id = batchIdOf(c);
    const { data } = await store.codes(id);
    return new Response(codesCsv(data), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${id}-codes.csv"`,
      },
    });
  });
  app.post("/console/redemption-codes/:id/disable", async (c) => {
    const id = batchIdOf(c);
    const form = await readForm(c);
    if (form.confirm !== "yes") {
      return batchPage(gateway, {
        c,
        id,
        problem: "Tick the box to confirm disabling the batch; nothing was changed",
      });
    }
    await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/redemption-batches/:id/disable",
        method: "POST",
        target: { kind: "redemption_batch", id },
        readTarget: (target) => store.summary(target),
        apply: () => store.disableBatch(id),
      },
    });
    return c.redirect(batchPath(id), 303);
  });
  app.post("/console/redemption-codes/:id/codes/:code/disable", async (c) => {
    const id = batchIdOf(c);
    const codeId = c.req.param("code");
    // A code of another batch is not found here, as an unknown one.
    const code = hasIdShape(codeId, "redemptionCode")
      ? await store.code(codeId).catch((error) => {
        if (error instanceof GatewayError && error.status === 404) return null;
        throw error;
      })
      : null;
    if (!code || code.batch_id !== id) throw codeIdNotFound(codeId.slice(0, 80));
    try {
      await consoleChange(gateway, {
        c,
        change: {
          route: "/admin/redemption-codes/:id/disable",
          method: "POST",
          target: { kind: "redemption_code", id: codeId },
          readTarget: (target) => store.code(target),
          apply: () => store.disableCode(codeId),
        },
      });
    } catch (error) {
      const refusal = refusalOf(error);
      return batchPage(gateway, { c, id, problem: refusal.message, status: refusal.status });
    }
    return c.redirect(`${batchPath(id)}#${codeId}`, 303);
  });
  return app;
}
