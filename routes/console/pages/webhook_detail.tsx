/**
 * Operator's webhook endpoint: facts, Disable/Enable, Send test (its attempt shown), Rotate the
 * secret with a grace, edit, delete, and the delivery history with Redeliver. Changes go through
 * the webhooks service, as /admin/webhooks does, audited as the console session's.
 */

import { Hono } from "hono";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import { webhookPatchSchema, webhookRotateSchema } from "../../../core/webhooks/endpoint_schema.ts";
import { webhookNotFound } from "../../../core/webhooks/endpoint_store.ts";
import type { DeliveryView } from "../../../core/webhooks/webhook_service.ts";
import { listed, listOptions } from "../../admin/shared.ts";
import { hasIdShape } from "../../params.ts";
import { validate } from "../../validation.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { DeliveryRows } from "../delivery_rows.tsx";
import { readForm } from "../form_body.ts";
import { Field } from "../field.tsx";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { WebhookFields, webhookFormValues } from "../webhook_fields.tsx";
import { webhookPatchOf } from "../webhook_form.ts";
import { nameBook } from "../name_links.tsx";
import { keyIdChoices } from "../pickers.tsx";
import { scopeText } from "./webhooks.tsx";

function endpointIdOf(c: ConsoleContext): string {
  const id = c.req.param("id") ?? "";
  if (!hasIdShape(id, "webhook")) throw webhookNotFound(id.slice(0, 80));
  return id;
}

const deliveryNotFound = (id: string) =>
  new GatewayError("delivery_not_found", 404, `The endpoint has no delivery '${id.slice(0, 80)}'`);

function TestResult({ delivery }: { delivery: DeliveryView }) {
  const attempt = delivery.attempts.at(-1);
  const ok = delivery.status === "succeeded";
  return (
    <div role="status" class={ok ? "notice" : "error"}>
      <dl class="facts">
        <dt>Result</dt>
        <dd class={ok ? "ok" : "bad"}>{ok ? "delivered" : "failed"}</dd>
        <dt>Response</dt>
        <dd>{attempt?.status_code ?? "no answer"}</dd>
        <dt>Latency</dt>
        <dd>{attempt ? `${attempt.latency_ms} ms` : "—"}</dd>
        {attempt?.error
          ? (
            <>
              <dt>Error</dt>
              <dd>{attempt.error}</dd>
            </>
          )
          : null}
        <dt>webhook-id</dt>
        <dd>
          <code>{delivery.webhook_id}</code>
        </dd>
      </dl>
    </div>
  );
}

async function endpointPage(
  gateway: Gateway,
  options: { c: ConsoleContext; id: string; problem?: string; sent?: DeliveryView },
) {
  const { c, id, problem, sent } = options;
  const endpoint = await gateway.webhooks.get(id);
  const book = await nameBook(gateway, { keys: [endpoint.key_id] });
  const url = c.get("url");
  const listing = listOptions(url);
  const deliveries = await listed(
    listing,
    () => gateway.webhooks.deliveriesOfEndpoint(id, listing),
  );
  const base = baseUrlOf(gateway, url);
  const path = `/admin/webhooks/${id}`;
  const session = c.get("session");
  const config = endpoint.source === "config";
  return renderPage(
    c,
    <>
      <p>
        <a href="/console/webhooks">All endpoints</a>
      </p>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <section class="card" aria-labelledby="facts-heading">
        <h2 id="facts-heading">Endpoint</h2>
        <dl class="facts">
          <dt>Id</dt>
          <dd>
            <code>{endpoint.id}</code>
          </dd>
          <dt>URL</dt>
          <dd>
            <code>{endpoint.url}</code>
          </dd>
          <dt>Tasks of</dt>
          <dd>{scopeText(endpoint, book)}</dd>
          <dt>Events</dt>
          <dd>{endpoint.events.join(", ")}</dd>
          <dt>Task callback_url</dt>
          <dd>{endpoint.allow_task_callbacks ? "allowed" : "not allowed"}</dd>
          <dt>State</dt>
          <dd>{endpoint.enabled ? "enabled" : <span class="bad">disabled</span>}</dd>
          <dt>Source</dt>
          <dd>{config ? "config file (changes are refused)" : "admin"}</dd>
          <dt>Previous secret</dt>
          <dd>
            {endpoint.previous_secret_expires_at
              ? `still signs until ${endpoint.previous_secret_expires_at}`
              : <span class="muted">none</span>}
          </dd>
        </dl>
        <form method="post" action={`/console/webhooks/${id}/enabled`} class="row">
          <CsrfField session={session} />
          {endpoint.enabled
            ? <button type="submit" class="danger" name="enabled" value="false">Disable</button>
            : <button type="submit" name="enabled" value="true">Enable</button>}
        </form>
        <CopyAsCurl
          id="curl-enabled"
          curl={adminCurl(base, { method: "PATCH", path, body: { enabled: !endpoint.enabled } })}
        />
      </section>
      <section class="card" aria-labelledby="test-heading">
        <h2 id="test-heading">Send test</h2>
        <p class="muted">
          Sends a signed <code>webhook.test</code> event now, once, and shows the receiver's answer.
        </p>
        {sent ? <TestResult delivery={sent} /> : null}
        <form method="post" action={`/console/webhooks/${id}/test`} class="row">
          <CsrfField session={session} />
          <button type="submit">Send test</button>
        </form>
        <CopyAsCurl
          id="curl-test"
          curl={adminCurl(base, { method: "POST", path: `${path}/test` })}
        />
      </section>
      <section class="card" aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        <DeliveryRows deliveries={deliveries.data} session={session} />
        {deliveries.cursor
          ? (
            <p>
              <a href={`/console/webhooks/${id}${listQuery(url, deliveries.cursor)}`} rel="next">
                Older deliveries
              </a>
            </p>
          )
          : null}
        <CopyAsCurl
          id="curl-deliveries"
          curl={adminCurl(base, { method: "GET", path: `${path}/deliveries` })}
        />
      </section>
      <section class="card" aria-labelledby="rotate-heading">
        <h2 id="rotate-heading">Rotate the secret</h2>
        <p class="muted">
          The new secret is shown once. During the grace the old secret signs too (two signatures in
          {" "}
          <code>webhook-signature</code>), so receivers can switch without missing an event.
        </p>
        <form method="post" action={`/console/webhooks/${id}/rotate`} class="row">
          <CsrfField session={session} />
          <Field
            name="grace_seconds"
            label="Old secret signs for"
            value="86400"
            options={[
              ["86400", "24 hours"],
              ["3600", "1 hour"],
              ["604800", "7 days"],
              ["0", "no grace (stops at once)"],
            ]}
          />
          <div>
            <button type="submit">Rotate</button>
          </div>
        </form>
        <CopyAsCurl
          id="curl-rotate"
          curl={adminCurl(base, {
            method: "POST",
            path: `${path}/rotate`,
            body: { grace_seconds: 86400 },
          })}
        />
      </section>
      <section class="card" aria-labelledby="edit-heading">
        <h2 id="edit-heading">Edit</h2>
        <form method="post" action={`/console/webhooks/${id}/edit`}>
          <CsrfField session={session} />
          <WebhookFields
            values={webhookFormValues(endpoint)}
            prefix="edit"
            keyChoices={await keyIdChoices(gateway)}
          />
          <p>
            <button type="submit">Save</button>
          </p>
        </form>
        <CopyAsCurl
          id="curl-edit"
          curl={adminCurl(base, { method: "PATCH", path, body: { events: endpoint.events } })}
        />
      </section>
      <section class="card" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete</h2>
        <form method="post" action={`/console/webhooks/${id}/delete`} class="row">
          <CsrfField session={session} />
          <button type="submit" class="danger">Delete the endpoint</button>
        </form>
        <CopyAsCurl id="curl-delete" curl={adminCurl(base, { method: "DELETE", path })} />
      </section>
    </>,
    {
      title: `Webhook ${endpoint.url}`,
      copyButtons: true,
      status: problem ? 400 : 200,
    },
  );
}

/** Runs a console change; a 4xx the operator can fix (400, 409) re-renders with the problem. */
async function changed(
  gateway: Gateway,
  options: { c: ConsoleContext; id: string; run: () => Promise<Response> },
) {
  try {
    return await options.run();
  } catch (error) {
    if (error instanceof GatewayError && (error.status === 400 || error.status === 409)) {
      return endpointPage(gateway, { c: options.c, id: options.id, problem: error.message });
    }
    throw error;
  }
}

function patchEndpoint(
  gateway: Gateway,
  { c, id, body }: { c: ConsoleContext; id: string; body: Record<string, unknown> },
) {
  return changed(gateway, {
    c,
    id,
    run: async () => {
      const patch = validate(webhookPatchSchema, body);
      await consoleChange(gateway, {
        c,
        change: {
          route: "/admin/webhooks/:id",
          method: "PATCH",
          target: { kind: "webhook", id },
          readTarget: (target) => gateway.webhooks.get(target),
          apply: () => gateway.webhooks.update(id, patch),
        },
      });
      return c.redirect(`/console/webhooks/${id}`, 303);
    },
  });
}

export function webhookDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.use("/console/webhooks/:id", requireOperator());
  app.use("/console/webhooks/:id/*", requireOperator());
  app.get("/console/webhooks/:id", (c) => endpointPage(gateway, { c, id: endpointIdOf(c) }));
  app.post("/console/webhooks/:id/enabled", async (c) => {
    const id = endpointIdOf(c);
    const form = await readForm(c);
    return patchEndpoint(gateway, { c, id, body: { enabled: form.enabled === "true" } });
  });
  app.post("/console/webhooks/:id/edit", async (c) => {
    const id = endpointIdOf(c);
    return patchEndpoint(gateway, { c, id, body: webhookPatchOf(await readForm(c)) });
  });
  app.post("/console/webhooks/:id/test", async (c) => {
    const id = endpointIdOf(c);
    await readForm(c);
    const sent = await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/webhooks/:id/test",
        method: "POST",
        target: { kind: "webhook", id },
        apply: () => gateway.webhooks.sendTest(id),
        outcomeOf: () => ({ status: 200 }),
      },
    });
    return endpointPage(gateway, { c, id, sent });
  });
  app.post("/console/webhooks/:id/rotate", async (c) => {
    const id = endpointIdOf(c);
    const form = await readForm(c);
    return changed(gateway, {
      c,
      id,
      run: async () => {
        const input = validate(webhookRotateSchema, {
          grace_seconds: /^\d+$/.test(form.grace_seconds ?? "")
            ? Number(form.grace_seconds)
            : form.grace_seconds,
        });
        const rotated = await consoleChange(gateway, {
          c,
          change: {
            route: "/admin/webhooks/:id/rotate",
            method: "POST",
            target: { kind: "webhook", id },
            readTarget: (target) => gateway.webhooks.get(target),
            apply: () => gateway.webhooks.rotate(id, { graceSeconds: input.grace_seconds }),
            outcomeOf: () => ({ status: 200 }),
          },
        });
        await gateway.consoleSessions.putFlash(
          c.get("session").id,
          { owner: id, secret: rotated.secret },
        );
        return c.redirect(`/console/webhooks/${id}/secret`, 303);
      },
    });
  });
  app.post("/console/webhooks/:id/delete", async (c) => {
    const id = endpointIdOf(c);
    await readForm(c);
    return changed(gateway, {
      c,
      id,
      run: async () => {
        await consoleChange(gateway, {
          c,
          change: {
            route: "/admin/webhooks/:id",
            method: "DELETE",
            target: { kind: "webhook", id },
            readTarget: (target) => gateway.webhooks.get(target),
            apply: () => gateway.webhooks.delete(id),
            outcomeOf: () => ({ status: 204 }),
          },
        });
        return c.redirect("/console/webhooks", 303);
      },
    });
  });
  app.post("/console/webhooks/:id/deliveries/:delivery_id/redeliver", async (c) => {
    const id = endpointIdOf(c);
    const deliveryId = c.req.param("delivery_id") ?? "";
    if (!hasIdShape(deliveryId, "delivery")) throw deliveryNotFound(deliveryId);
    await readForm(c);
    const sent = await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/webhooks/:id/deliveries/:delivery_id/redeliver",
        method: "POST",
        target: { kind: "webhook", id },
        apply: () => gateway.webhooks.redeliver(id, deliveryId),
        outcomeOf: () => ({ status: 200 }),
      },
    });
    return endpointPage(gateway, { c, id, sent });
  });
  return app;
}
