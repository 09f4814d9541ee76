/**
 * Operator's redemption-code batches: the list (each batch with its codes' states), the New batch
 * form, and the page that shows a new batch's codes once (sealed in the session's flash like a
 * new key's secret; a reload shows them no more). Reads and changes go through the same service
 * calls as /admin/redemption-batches, and the creation is audited as that route's.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import type { Gateway } from "../../../core/gateway.ts";
import { redemptionBatchInputSchema } from "../../../core/accounts/redemption_records.ts";
import type { BatchSummary } from "../../../core/accounts/redemption_store.ts";
import { GatewayError } from "../../../core/errors.ts";
import { listed, listOptions } from "../../admin/shared.ts";
import { hasIdShape } from "../../params.ts";
import { validate } from "../../validation.ts";
import { batchInputOf } from "../batch_form.ts";
import { CodesOnce } from "../codes_once.tsx";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { renderPage } from "../render.tsx";
import { adminCurl } from "../snippets.ts";

export const batchPath = (id: string) => `/console/redemption-codes/${id}`;

/** A batch's state in words: disabled, expired (past its expiry), or open. */
export function batchStateOf(
  batch: Pick<BatchSummary, "disabled_at" | "expires_at">,
  nowMs = Date.now(),
): "disabled" | "expired" | "open" {
  if (batch.disabled_at) return "disabled";
  if (batch.expires_at && Date.parse(batch.expires_at) <= nowMs) return "expired";
  return "open";
}

function BatchRows({ batches, money }: { batches: BatchSummary[]; money: ConsoleMoney }) {
  return (
    <DataTable
      rows={batches}
      empty="No batch yet."
      columns={[
        { header: "Name", cell: (batch) => <a href={batchPath(batch.id)}>{batch.name}</a> },
        { header: "Amount", cell: (batch) => money.amount(batch.amount) },
        { header: "Codes", cell: (batch) => batch.count },
        { header: "Redeemed", cell: (batch) => batch.states.redeemed },
        { header: "Unused", cell: (batch) => batch.states.unused },
        { header: "Disabled", cell: (batch) => batch.states.disabled },
        { header: "Expired", cell: (batch) => batch.states.expired },
        { header: "Expires", cell: (batch) => batch.expires_at ?? "never" },
        { header: "Group", cell: (batch) => batch.group ?? "any" },
        {
          header: "State",
          cell: (batch) => batchStateOf(batch),
          cellClass: (batch) => batchStateOf(batch) === "open" ? undefined : "bad",
        },
        { header: "Created", cell: (batch) => batch.created_at },
      ]}
    />
  );
}

async function batchesPage(gateway: Gateway, c: ConsoleContext) {
  const url = c.get("url");
  const options = listOptions(url);
  const store = gateway.redemptions.store;
  const page = await listed(options, () => store.listBatches(options));
  const batches = await Promise.all(page.data.map((batch) => store.summary(batch.id)));
  return renderPage(
    c,
    <>
      <p>
        <a class="button" href="/console/redemption-codes/new">New batch</a>
      </p>
      <section class="card" aria-label="Batches">
        <BatchRows batches={batches} money={c.get("money")} />
        {page.cursor
          ? (
            <p>
              <a href={`/console/redemption-codes${listQuery(url, page.cursor)}`} rel="next">
                Next page
              </a>
            </p>
          )
          : null}
      </section>
      <CopyAsCurl
        id="curl-list"
        curl={adminCurl(baseUrlOf(gateway, url), {
          method: "GET",
          path: `/admin/redemption-batches${listQuery(url)}`,
        })}
      />
    </>,
    { title: "Redemption codes", copyButtons: true },
  );
}

function NewBatchForm(
  { c, fields, problem }: { c: ConsoleContext; fields: Record<string, string>; problem?: string },
) {
  return (
    <form method="post" action="/console/redemption-codes" class="card">
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <CsrfField session={c.get("session")} />
      <div class="fields">
        <Field name="name" label="Name" value={fields.name ?? ""} required />
        <Field
          name="amount"
          label={`Amount (${c.get("money").format.currency})`}
          value={fields.amount ?? ""}
          required
          inputmode="decimal"
          hint="what each code credits, e.g. 5.00"
        />
        <Field
          name="count"
          label="Count"
          value={fields.count ?? ""}
          required
          inputmode="numeric"
          hint="how many codes, 1-1000"
        />
        <Field
          name="expires_at"
          label="Expires (UTC)"
          type="datetime-local"
          value={fields.expires_at ?? ""}
          hint="never when empty"
        />
        <Field
          name="group"
          label="Group"
          value={fields.group ?? ""}
          hint="only accounts of this group may redeem; any group when empty"
        />
      </div>
      <p>
        <button type="submit">Create batch</button>
      </p>
    </form>
  );
}

function newBatchPage(
  gateway: Gateway,
  { c, fields = {}, problem }: {
    c: ConsoleContext;
    fields?: Record<string, string>;
    problem?: string;
  },
) {
  const body = fields.name ? batchInputOf(fields) : {
    name: "black friday",
    amount: 5_000_000,
    count: 100,
    expires_at: "2026-12-31T23:59:59Z",
  };
  return renderPage(
    c,
    <>
      <p class="muted">
        The codes are shown once, on the next page; the gateway keeps only their hashes.
      </p>
      <NewBatchForm c={c} fields={fields} problem={problem} />
      <CopyAsCurl
        id="curl-create"
        curl={adminCurl(baseUrlOf(gateway, c.get("url")), {
          method: "POST",
          path: "/admin/redemption-batches",
          body,
        })}
      />
    </>,
    { title: "New batch", status: problem ? 400 : 200, copyButtons: true },
  );
}

async function createBatch(gateway: Gateway, c: ConsoleContext) {
  const { csrf: _csrf, ...fields } = await readForm(c);
  const store = gateway.redemptions.store;
  let created;
  try {
    const input = validate(redemptionBatchInputSchema, batchInputOf(fields));
    created = await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/redemption-batches",
        method: "POST",
        target: { kind: "redemption_batch", id: null },
        // The batch's view: never its codes.
        readTarget: (id) => store.summary(id),
        apply: () => store.createBatch(input),
        outcomeOf: (result) => ({ status: 201, createdId: result.batch.id }),
      },
    });
  } catch (error) {
    if (error instanceof GatewayError && error.status === 400) {
      return newBatchPage(gateway, { c, fields, problem: error.message });
    }
    throw error;
  }
  // In the order of the batch's code list (by code id), so the page can name each code's id.
  const codes = [...created.codes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  await gateway.consoleSessions.putFlash(c.get("session").id, {
    owner: created.batch.id,
    secret: codes.map((code) => code.code).join("\n"),
  });
  return c.redirect(`${batchPath(created.batch.id)}/created`, 303);
}

/** The new batch's codes, taken from the session's flash: shown on the first view only. */
async function createdPage(gateway: Gateway, c: ConsoleContext, id: string) {
  const sealed = await gateway.consoleSessions.takeFlash(c.get("session").id, id);
  const codes = sealed ? sealed.split("\n") : null;
  const ids = codes ? (await gateway.redemptions.store.codes(id)).data.map((code) => code.id) : [];
  const rows = codes && ids.length === codes.length
    ? codes.map((code, index) => ({ id: ids[index], code }))
    : [];
  return renderPage(
    c,
    <CodesOnce
      codes={codes}
      fileName={`${id}-codes.txt`}
      back={{ href: batchPath(id), label: "Go to the batch" }}
    >
      {rows.length
        ? (
          <details>
            <summary>Each code with its id</summary>
            <DataTable
              rows={rows}
              columns={[
                { header: "Id", cell: (row) => <code>{row.id}</code> },
                { header: "Code", cell: (row) => <code>{row.code}</code> },
              ]}
            />
          </details>
        )
        : null}
    </CodesOnce>,
    { title: "Batch codes", copyButtons: Boolean(codes) },
  );
}

export function batchPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/redemption-codes", (c) => batchesPage(gateway, c));
  app.get("/console/redemption-codes/new", (c) => newBatchPage(gateway, { c }));
  app.post("/console/redemption-codes", (c) => createBatch(gateway, c));
  app.get("/console/redemption-codes/:id/created", (c) => {
    const id = c.req.param("id");
    if (!hasIdShape(id, "redemptionBatch")) {
      throw new GatewayError("batch_not_found", 404, "No such redemption batch");
    }
    return createdPage(gateway, c, id);
  });
  return app;
}
