/**
 * One request: what it was, its receipt (units × price = amount, and the ledger entries that took
 * it), the fields the channel ignored, and (operator only) the upstream attempts. A key holder
 * sees only its own key's requests, without channels or upstream data.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import type { Receipt } from "../../../core/billing/receipt.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import type { AttemptRecord, RequestLogEntry } from "../../../core/telemetry/request_log.ts";
import { selfView } from "../../me.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { CopyAsCurl } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { adminCurl } from "../snippets.ts";
import type { Child } from "hono/jsx";
import {
  AccountName,
  ChannelName,
  KeyName,
  ModelName,
  type NameBook,
  nameBook,
  TaskLink,
} from "../name_links.tsx";

const REQUEST_ID = /^req_[0-9A-Za-z]{1,64}$/;

const requestNotFound = () =>
  new GatewayError("request_not_found", 404, "No logged request has this id");

export function ReceiptView({ receipt, money }: { receipt: Receipt; money: ConsoleMoney }) {
  const units = Object.entries(receipt.units).filter(([, value]) => value !== undefined);
  return (
    <section class="card" aria-labelledby="receipt-heading">
      <h2 id="receipt-heading">Receipt</h2>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{receipt.kind}</dd>
        <dt>Quantities</dt>
        <dd>
          {units.map(([name, value]) => (
            <div>
              {name}: {Array.isArray(value) ? value.join(" + ") : String(value)}
            </div>
          ))}
        </dd>
        <dt>Prices (units)</dt>
        <dd>
          {Object.entries(receipt.prices).map(([name, value]) => (
            <div>
              {name}: {String(value)}
            </div>
          ))}
        </dd>
        {Object.keys(receipt.multipliers).length
          ? (
            <>
              <dt>Multipliers</dt>
              <dd>
                {Object.entries(receipt.multipliers).map(([name, value]) => (
                  <div>
                    {name}: {value}
                  </div>
                ))}
              </dd>
            </>
          )
          : null}
        <dt>Formula (units)</dt>
        <dd>
          <code>{receipt.formula}</code>
        </dd>
        <dt>Amount</dt>
        <dd>
          {money.amount(receipt.amount)}{" "}
          <span class="muted">({receipt.amount} units, the formula's result)</span>
        </dd>
        <dt>Charged</dt>
        <dd>{money.amount(receipt.charged)}</dd>
        <dt>Status</dt>
        <dd>{receipt.status}</dd>
        {receipt.held !== undefined
          ? (
            <>
              <dt>Held</dt>
              <dd>{money.amount(receipt.held)}</dd>
            </>
          )
          : null}
        {receipt.refunded !== undefined
          ? (
            <>
              <dt>Refunded</dt>
              <dd>{money.amount(receipt.refunded)}</dd>
            </>
          )
          : null}
        <dt>Ledger entries</dt>
        <dd>
          {receipt.ledger_entry_ids.length
            ? receipt.ledger_entry_ids.map((id) => (
              <div>
                <code>{id}</code>
              </div>
            ))
            : <span class="muted">none</span>}
        </dd>
      </dl>
    </section>
  );
}

function Attempts({ attempts, book }: { attempts: AttemptRecord[]; book: NameBook }) {
  return (
    <section class="card" aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Attempts</h2>
      <DataTable
        rows={attempts}
        empty="No upstream was called."
        columns={[
          {
            header: "Channel",
            cell: (attempt) => <ChannelName id={attempt.channel_id} book={book} />,
          },
          {
            header: "Outcome",
            cell: (attempt) =>
              attempt.outcome === "ok"
                ? <span class="ok">ok</span>
                : attempt.outcome === "skipped"
                ? <span class="muted">skipped: {attempt.reason ?? "breaker_open"}</span>
                : <span class="bad">{attempt.error_class ?? "failed"}</span>,
          },
          { header: "Status", cell: (attempt) => attempt.status ?? "" },
          {
            header: "Latency",
            cell: (attempt) => attempt.latency_ms === undefined ? "—" : `${attempt.latency_ms} ms`,
          },
          { header: "Error", cell: (attempt) => attempt.error ?? "" },
        ]}
      />
    </section>
  );
}

/**
 * What the request was. With `book` (the operator's page) its key, account, channel, model and
 * task are names linked to their pages; without, the values as they are.
 */
export function Facts(
  { record, money, book }: {
    record: Partial<RequestLogEntry>;
    money: ConsoleMoney;
    book?: NameBook;
  },
) {
  const fact = (label: string, value: unknown) =>
    value === undefined || value === null ? null : (
      <>
        <dt>{label}</dt>
        <dd>{String(value)}</dd>
      </>
    );
  const linked = (label: string, value: string | null | undefined, named: Child) =>
    value === undefined || value === null ? null : book
      ? (
        <>
          <dt>{label}</dt>
          <dd>{named}</dd>
        </>
      )
      : fact(label, value);
  return (
    <section class="card" aria-labelledby="request-heading">
      <h2 id="request-heading">
        <code>{record.id}</code>
      </h2>
      <dl class="facts">
        {fact("Time (UTC)", record.at)}
        {fact("Interface", record.interface)}
        {fact("Route", record.route)}
        {linked("Model", record.model, book && <ModelName id={record.model} book={book} />)}
        {linked("Key", record.key_id, book && <KeyName id={record.key_id} book={book} />)}
        {linked(
          "Account",
          book && record.account_id,
          book && <AccountName id={record.account_id} book={book} />,
        )}
        {linked(
          "Channel",
          record.channel_id,
          book && <ChannelName id={record.channel_id} book={book} />,
        )}
        {fact("Status", record.status)}
        {fact("Error", record.error_code)}
        {fact("Latency", record.latency_ms === undefined ? undefined : `${record.latency_ms} ms`)}
        {fact("Streamed", record.stream)}
        {fact("Outcome", record.outcome)}
        {fact("Input tokens", record.input_tokens)}
        {fact("Cached input tokens", record.cached_input_tokens)}
        {fact("Output tokens", record.output_tokens)}
        {fact("Usage from", record.usage_source)}
        {fact("Images", record.images)}
        {fact("Billed seconds", record.billed_seconds)}
        {linked("Task", record.task_id, <TaskLink id={record.task_id} />)}
        {fact("Task status", record.task_status)}
        {record.cost === undefined ? null : (
          <>
            <dt>Cost</dt>
            <dd>{money.amount(record.cost)}</dd>
          </>
        )}
        <dt>Ignored fields</dt>
        <dd>
          {record.ignored_fields?.length
            ? <code>{record.ignored_fields.join(", ")}</code>
            : <span class="muted">none</span>}
        </dd>
      </dl>
    </section>
  );
}

/** The record a session may see: all of it for the operator, the holder's own without routing. */
async function visibleRecord(
  gateway: Gateway,
  { c, id }: { c: ConsoleContext; id: string },
): Promise<Partial<RequestLogEntry>> {
  if (!REQUEST_ID.test(id)) throw requestNotFound();
  const record = await gateway.requestLog.get(id);
  if (!record) throw requestNotFound();
  const role = c.get("session").role;
  if (role.kind === "operator") return record;
  // Another key's request is "not found", so ids of other keys' requests cannot be probed.
  if (role.kind !== "holder" || record.key_id !== role.keyId) throw requestNotFound();
  return selfView(record) as Partial<RequestLogEntry>;
}

async function requestDetailPage(gateway: Gateway, c: ConsoleContext) {
  const record = await visibleRecord(gateway, { c, id: c.req.param("id") ?? "" });
  const operator = c.get("session").role.kind === "operator";
  const book = operator
    ? await nameBook(gateway, { keys: [record.key_id], accounts: [record.account_id] })
    : undefined;
  const base = baseUrlOf(gateway, c.get("url"));
  const curl = operator
    ? adminCurl(base, { method: "GET", path: `/admin/requests/${record.id}` })
    : `curl '${base}/v1/me/requests' \\\n  -H "Authorization: Bearer $GATEWAY_KEY"`;
  return renderPage(
    c,
    <>
      <p>
        <a href="/console/requests">All requests</a>
      </p>
      <Facts record={record} money={c.get("money")} book={book} />
      {record.receipt
        ? <ReceiptView receipt={record.receipt} money={c.get("money")} />
        : <p class="card muted">This request has no receipt: nothing was billed.</p>}
      {book ? <Attempts attempts={record.upstream_attempts ?? []} book={book} /> : null}
      <CopyAsCurl id="curl-request" curl={curl} />
    </>,
    { title: "Request", copyButtons: true },
  );
}

export function requestDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/requests/:id", (c) => requestDetailPage(gateway, c));
  return app;
}
