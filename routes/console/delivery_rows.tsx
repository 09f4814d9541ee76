/**
 * A table of webhook deliveries (an endpoint's or a task's): event, task, status, each attempt's
 * response code, latency and error, the next attempt, and a Redeliver button for the operator.
 */

import type { ConsoleSession } from "../../core/console/session_store.ts";
import type { DeliveryView } from "../../core/webhooks/webhook_service.ts";
import { CsrfField } from "./layout.tsx";

function lastAttempt(delivery: DeliveryView) {
  return delivery.attempts.at(-1) ?? null;
}

function StatusCell({ delivery }: { delivery: DeliveryView }) {
  const css = delivery.status === "succeeded" ? "ok" : delivery.status === "failed" ? "bad" : "";
  return <td class={css}>{delivery.status}</td>;
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
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            {showEndpoint ? <th scope="col">Endpoint</th> : <th scope="col">Task</th>}
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last response</th>
            <th scope="col">Latency</th>
            <th scope="col">Next attempt</th>
            {session ? <th scope="col">Action</th> : null}
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => {
            const last = lastAttempt(delivery);
            return (
              <tr id={`delivery-${delivery.id}`}>
                <td>{delivery.created_at}</td>
                <td>
                  <code>{delivery.event}</code>
                </td>
                {showEndpoint
                  ? (
                    <td>
                      <a href={`/console/webhooks/${delivery.endpoint_id}`}>
                        {delivery.callback_url ? "callback_url" : delivery.endpoint_id}
                      </a>
                    </td>
                  )
                  : (
                    <td>
                      {delivery.task_id
                        ? <a href={`/console/tasks/${delivery.task_id}`}>{delivery.task_id}</a>
                        : <span class="muted">—</span>}
                    </td>
                  )}
                <StatusCell delivery={delivery} />
                <td>{delivery.attempts.length}</td>
                <td>
                  {last === null
                    ? <span class="muted">not sent yet</span>
                    : last.error
                    ? <span class="bad">{last.status_code ?? "no answer"}: {last.error}</span>
                    : last.status_code}
                </td>
                <td>{last === null ? "—" : `${last.latency_ms} ms`}</td>
                <td>{delivery.next_attempt_at ?? "—"}</td>
                {session
                  ? (
                    <td>
                      <form
                        method="post"
                        action={`/console/webhooks/${delivery.endpoint_id}/deliveries/${delivery.id}/redeliver`}
                      >
                        <CsrfField session={session} />
                        <button type="submit" class="quiet">Redeliver</button>
                      </form>
                    </td>
                  )
                  : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
