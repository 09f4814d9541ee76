/**
 * One task: status, progress, times, the result previewed from the gateway's hosted media, and
 * its money: held, settled and refunded by its ledger entries, and the receipt of the request that
 * made it (billed seconds, reference seconds included). A holder sees only its own key's tasks,
 * without channels or upstream ids.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import type { RefBilling } from "../../../core/billing/ledger_audit.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import type { TaskRecord } from "../../../core/tasks/task_record.ts";
import { taskBilling } from "../../../core/tasks/task_billing.ts";
import { hasIdShape } from "../../params.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv, ownOrigin } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { CopyAsCurl } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { adminCurl } from "../snippets.ts";
import { ReceiptView } from "./request_detail.tsx";
import type { Child } from "hono/jsx";
import { ChannelName, KeyName, ModelName, type NameBook, nameBook } from "../name_links.tsx";
import { DeliveryRows } from "../delivery_rows.tsx";
import { shownProgress } from "../task_progress.ts";

const taskNotFound = () => new GatewayError("task_not_found", 404, "No task has this id");

/**
 * The path of a result the gateway hosts itself (`/media/…` on its own origin), which the page's
 * CSP lets it show; any other URL is only linked, so loading the page calls no other origin.
 */
export function hostedMediaPath(url: string, { origin }: { origin: string }): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url, origin);
  } catch {
    return null;
  }
  return parsed.origin === origin && parsed.pathname.startsWith("/media/") ? parsed.pathname : null;
}

function Result({ task, origin }: { task: TaskRecord; origin: string }) {
  const urls = task.kind === "image"
    ? (task.image_urls ?? (task.result_url ? [task.result_url] : []))
    : (task.result_url ? [task.result_url] : []);
  if (urls.length === 0) {
    // A failure is said once, in the facts above.
    return (
      <p class="muted">{task.status === "failed" ? "None: the task failed." : "No result yet."}</p>
    );
  }
  return (
    <div class="row">
      {urls.map((url, index) => {
        const hosted = hostedMediaPath(url, { origin });
        if (!hosted) {
          return (
            <p>
              <a href={url} rel="noopener noreferrer">Result {index + 1} (not hosted here)</a>
            </p>
          );
        }
        return task.kind === "image"
          ? (
            <a href={hosted}>
              <img class="preview" src={hosted} alt={`Result ${index + 1} of ${task.id}`} />
            </a>
          )
          : (
            <video class="preview" src={hosted} controls preload="metadata">
              <a href={hosted}>Download the video</a>
            </video>
          );
      })}
    </div>
  );
}

function Billing(
  { billing, operator, money }: { billing: RefBilling; operator: boolean; money: ConsoleMoney },
) {
  return (
    <section class="card" aria-labelledby="billing-heading">
      <h2 id="billing-heading">Billing</h2>
      <dl class="facts">
        <dt>Held at submission</dt>
        <dd>{money.amount(billing.held)}</dd>
        <dt>Settled</dt>
        <dd>{money.amount(billing.settled)}</dd>
        <dt>Refunded</dt>
        <dd>{money.amount(billing.refunded)}</dd>
        {operator && billing.shortfall
          ? (
            <>
              <dt>Shortfall</dt>
              <dd>{money.amount(billing.shortfall)}</dd>
            </>
          )
          : null}
      </dl>
      <DataTable
        rows={billing.entries}
        columns={[
          { header: "Ledger entry", cell: (entry) => <code>{entry.id}</code> },
          { header: "Type", cell: (entry) => entry.type },
          { header: "Amount", cell: (entry) => money.amount(entry.amount) },
          { header: "At (UTC)", cell: (entry) => entry.at },
        ]}
      />
    </section>
  );
}

function timeOf(unixSeconds: number | null): string | null {
  return unixSeconds === null ? null : new Date(unixSeconds * 1000).toISOString();
}

/** A fact shown as a name linked to its page (`book` is the operator's). */
function namedFact(label: string, named: Child) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{named}</dd>
    </>
  );
}

function Facts(
  { task, operator, book, money }: {
    task: TaskRecord;
    operator: boolean;
    book?: NameBook;
    money: ConsoleMoney;
  },
) {
  const fact = (label: string, value: unknown) =>
    value === undefined || value === null ? null : (
      <>
        <dt>{label}</dt>
        <dd>{String(value)}</dd>
      </>
    );
  return (
    <dl class="facts">
      {fact("Kind", `${task.kind} (${task.action})`)}
      {book
        ? namedFact("Model", <ModelName id={task.model} book={book} />)
        : fact("Model", task.model)}
      {book ? namedFact("Key", <KeyName id={task.key_id} book={book} />) : null}
      {book ? namedFact("Channel", <ChannelName id={task.channel_id} book={book} />) : null}
      {fact("Status", task.status)}
      {fact("Progress", shownProgress(task))}
      {fact("Submitted", timeOf(task.submit_time))}
      {fact("Started", timeOf(task.start_time))}
      {fact("Finished", timeOf(task.finish_time))}
      {fact("Runs", task.attempts)}
      {fact("Failure", task.fail_reason)}
      {operator && task.submission_unknown
        ? fact(
          task.submission_unknown.needs_operator
            ? "Held for the operator (POST /admin/tasks/{id}/resolve)"
            : "Submission asked again",
          `${task.submission_unknown.at}: ${task.submission_unknown.reason}`,
        )
        : null}
      {task.cost === null ? null : (
        <>
          <dt>Cost</dt>
          <dd>{money.amount(task.cost)}</dd>
        </>
      )}
    </dl>
  );
}

/** The task a session may see: any for the operator, the holder's own key's only. */
async function visibleTask(
  gateway: Gateway,
  { c, id }: { c: ConsoleContext; id: string },
): Promise<TaskRecord> {
  if (!hasIdShape(id, "task")) throw taskNotFound();
  const task = await gateway.tasks.get(id);
  if (!task) throw taskNotFound();
  const role = c.get("session").role;
  // Another key's task is "not found", so its id cannot be probed.
  if (role.kind === "holder" && task.key_id !== role.keyId) throw taskNotFound();
  return task;
}

function curlOf(task: TaskRecord, { base, operator }: { base: string; operator: boolean }) {
  if (operator) return adminCurl(base, { method: "GET", path: `/admin/tasks/${task.id}` });
  const path = task.kind === "image"
    ? `/v1/images/tasks/${task.id}`
    : `/v1/video/generations/${task.id}`;
  return `curl '${base}${path}' \\\n  -H "Authorization: Bearer $GATEWAY_KEY"`;
}

async function taskDetailPage(gateway: Gateway, c: ConsoleContext) {
  const task = await visibleTask(gateway, { c, id: c.req.param("id") ?? "" });
  const operator = c.get("session").role.kind === "operator";
  const book = operator ? await nameBook(gateway, { keys: [task.key_id] }) : undefined;
  const billing = await taskBilling(gateway.kv, task);
  const request = task.request_id ? await gateway.requestLog.get(task.request_id) : null;
  // Deliveries name endpoints and their answers: the operator's business, not the holder's.
  const deliveries = operator
    ? await gateway.webhooks.deliveriesOfTask(task.id, { limit: 50, order: "desc" })
    : null;
  const url = c.get("url");
  const base = baseUrlOf(gateway, url);
  return renderPage(
    c,
    <>
      <p>
        <a href="/console/tasks">All tasks</a>
      </p>
      <section class="card" aria-labelledby="task-heading">
        <h2 id="task-heading">
          <code>{task.id}</code>
        </h2>
        <Facts task={task} operator={operator} book={book} money={c.get("money")} />
        <h3>Result</h3>
        <Result task={task} origin={ownOrigin(gateway, url)} />
      </section>
      <Billing billing={billing} operator={operator} money={c.get("money")} />
      {request?.receipt
        ? (
          <>
            <p>
              Made by request <a href={`/console/requests/${request.id}`}>{request.id}</a>
            </p>
            <ReceiptView receipt={request.receipt} money={c.get("money")} />
          </>
        )
        : null}
      {deliveries
        ? (
          <section class="card" aria-labelledby="deliveries-heading">
            <h2 id="deliveries-heading">Webhook deliveries</h2>
            <DeliveryRows
              deliveries={deliveries.data}
              session={c.get("session")}
              showEndpoint
            />
          </section>
        )
        : null}
      <CopyAsCurl id="curl-task" curl={curlOf(task, { base, operator })} />
    </>,
    { title: "Task", copyButtons: true },
  );
}

export function taskDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/tasks/:id", (c) => taskDetailPage(gateway, c));
  return app;
}
