/**
 * A table of webhook deliveries (an endpoint's or a task's): event, task, status, each attempt's
 * response code, latency and error, the next attempt, and a Redeliver button for the operator.
 */

import type { ConsoleSession } from "../../core/console/session_store.ts";
import type { DeliveryView } from "../../core/webhooks/webhook_service.ts";
import { type Column, DataTable } from "./data_table.tsx";
import { CsrfField } from "./layout.tsx";

function lastAttempt(delivery: DeliveryView) {
  return delivery.attempts.at(-1) ?? null;
}

const endpointColumn: Column<DeliveryView> = {
  header: "Endpoint",
  cell: (delivery) => (
    <a href={`/console/webhooks/${delivery.endpoint_id}`}>
      {delivery.callback_url ? "callback_url" : delivery.endpoint_id}
    </a>
  ),
};

const taskColumn: Column<DeliveryView> = {
  header: "Task",
  cell: (delivery) =>
    delivery.task_id
      ? <a href={`/console/tasks/${delivery.task_id}`}>{delivery.task_id}</a>
      : <span class="muted">—</span>,
};

function redeliverColumn(session: ConsoleSession): Column<DeliveryView> {
  return {
    header: "Action",
    cell: (delivery) => (
      <form
        method="post"
        action={`/console/webhooks/${delivery.endpoint_id}/deliveries/${delivery.id}/redeliver`}
      >
        <CsrfField session={session} />
        <button type="submit" class="quiet">Redeliver</button>
      </form>
    ),
  };
}

export function DeliveryRows(
  { deliveries, session, showEndpoint }: {
    deliveries: DeliveryView[];
    /** The operator's session: rows get Redeliver. */
    session?: ConsoleSession;
    showEndpoint?: boolean;
  },
) {
  if (deliveries.length === 0) return <p class="muted">No delivery yet.</p>;
  return (
    <DataTable
      rows={deliveries}
      rowId={(delivery) => `delivery-${delivery.id}`}
      columns={[
        { header: "Created", cell: (delivery) => delivery.created_at },
        { header: "Event", cell: (delivery) => <code>{delivery.event}</code> },
        showEndpoint ? endpointColumn : taskColumn,
        {
          header: "Status",
          cell: (delivery) => delivery.status,
          cellClass: (delivery) =>
            delivery.status === "succeeded" ? "ok" : delivery.status === "failed" ? "bad" : "",
        },
        { header: "Attempts", cell: (delivery) => delivery.attempts.length },
        {
          header: "Last response",
          cell: (delivery) => {
            const last = lastAttempt(delivery);
            return last === null
              ? <span class="muted">not sent yet</span>
              : last.error
              ? <span class="bad">{last.status_code ?? "no answer"}: {last.error}</span>
              : last.status_code;
          },
        },
        {
          header: "Latency",
          cell: (delivery) => {
            const last = lastAttempt(delivery);
            return last === null ? "—" : `${last.latency_ms} ms`;
          },
        },
        { header: "Next attempt", cell: (delivery) => delivery.next_attempt_at ?? "—" },
        session ? redeliverColumn(session) : null,
      ]}
    />
  );
}
