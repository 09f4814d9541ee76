/**
 * Operator's webhook endpoints: the list, the New endpoint form, and the page that shows a new
 * (or rotated) secret once. Every read and change goes through the webhooks service, as
 * /admin/webhooks does, and is audited as the console session's.
 */

import { Hono } from "hono";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import type { EndpointView } from "../../../core/webhooks/endpoint_schema.ts";
import { webhookCreateSchema } from "../../../core/webhooks/endpoint_schema.ts";
import { webhookNotFound } from "../../../core/webhooks/endpoint_store.ts";
import { listed, listOptions } from "../../admin/shared.ts";
import { hasIdShape } from "../../params.ts";
import { validate } from "../../validation.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { readForm } from "../form_body.ts";
import { DataTable } from "../data_table.tsx";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { renderPage } from "../render.tsx";
import { SecretOnce } from "../secret_once.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { WebhookFields } from "../webhook_fields.tsx";
import { KeyName, type NameBook, nameBook } from "../name_links.tsx";
import { keyIdChoices } from "../pickers.tsx";
import { webhookInputOf } from "../webhook_form.ts";

/** Whose tasks an endpoint hears of, in words: the key by name, the group linked. */
export function scopeText(endpoint: Pick<EndpointView, "key_id" | "group">, book: NameBook) {
  if (endpoint.key_id) {
    return (
      <>
        key <KeyName id={endpoint.key_id} book={book} />
      </>
    );
  }
  if (!endpoint.group) return "every key";
  return (
    <>
      group <a href={`/console/groups/${encodeURIComponent(endpoint.group)}`}>{endpoint.group}</a>
    </>
  );
}

function EndpointRows({ endpoints, book }: { endpoints: EndpointView[]; book: NameBook }) {
  return (
    <DataTable
      rows={endpoints}
      empty="No webhook endpoint yet."
      columns={[
        {
          header: "URL",
          cell: (endpoint) => (
            <>
              <a href={`/console/webhooks/${endpoint.id}`}>{endpoint.url}</a>
              {endpoint.description ? <small class="muted">{endpoint.description}</small> : null}
            </>
          ),
        },
        { header: "Tasks of", cell: (endpoint) => scopeText(endpoint, book) },
        { header: "Events", cell: (endpoint) => endpoint.events.join(", ") },
        {
          header: "Callbacks",
          cell: (endpoint) => endpoint.allow_task_callbacks ? "allowed" : "no",
        },
        {
          header: "State",
          cell: (endpoint) => endpoint.enabled ? "enabled" : <span class="bad">disabled</span>,
        },
        { header: "Source", cell: (endpoint) => endpoint.source },
      ]}
    />
  );
}

async function webhooksPage(gateway: Gateway, c: ConsoleContext) {
  const url = c.get("url");
  const options = listOptions(url);
  const page = await listed(options, () => gateway.webhooks.list(options));
  const book = await nameBook(gateway, { keys: page.data.map((endpoint) => endpoint.key_id) });
  return renderPage(
    c,
    <>
      <p>
        <a class="button" href="/console/webhooks/new">New endpoint</a>
      </p>
      <section class="card" aria-label="Webhook endpoints">
        <EndpointRows endpoints={page.data} book={book} />
        {page.cursor
          ? (
            <p>
              <a href={`/console/webhooks${listQuery(url, page.cursor)}`} rel="next">Next page</a>
            </p>
          )
          : null}
      </section>
      <CopyAsCurl
        id="curl-list"
        curl={adminCurl(baseUrlOf(gateway, url), {
          method: "GET",
          path: `/admin/webhooks${listQuery(url)}`,
        })}
      />
    </>,
    { title: "Webhooks", copyButtons: true },
  );
}

async function newEndpointPage(
  c: ConsoleContext,
  options: { gateway: Gateway; fields?: Record<string, string>; problem?: string },
) {
  const fields = options.fields ?? {};
  const body = Object.keys(fields).length
    ? webhookInputOf(fields)
    : { url: "https://example.com/hooks/gateway", events: ["task.succeeded", "task.failed"] };
  return renderPage(
    c,
    <>
      <form method="post" action="/console/webhooks" class="card">
        {options.problem ? <p class="error" role="alert">{options.problem}</p> : null}
        <CsrfField session={c.get("session")} />
        <WebhookFields
          values={fields}
          prefix="new"
          keyChoices={await keyIdChoices(options.gateway)}
        />
        <p>
          <button type="submit">Create</button>
        </p>
      </form>
      <CopyAsCurl
        id="curl-create"
        curl={adminCurl(baseUrlOf(options.gateway, c.get("url")), {
          method: "POST",
          path: "/admin/webhooks",
          body,
        })}
      />
    </>,
    { title: "New webhook endpoint", status: options.problem ? 400 : 200, copyButtons: true },
  );
}

async function createEndpoint(gateway: Gateway, c: ConsoleContext) {
  const { csrf: _csrf, ...fields } = await readForm(c);
  let created;
  try {
    const input = validate(webhookCreateSchema, webhookInputOf(fields));
    created = await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/webhooks",
        method: "POST",
        target: { kind: "webhook", id: null },
        readTarget: (id) => gateway.webhooks.get(id),
        apply: () => gateway.webhooks.create(input),
        outcomeOf: (result) => ({ status: 201, createdId: result.id }),
      },
    });
  } catch (error) {
    if (error instanceof GatewayError && error.status === 400) {
      return newEndpointPage(c, { gateway, fields, problem: error.message });
    }
    throw error;
  }
  await gateway.consoleSessions.putFlash(
    c.get("session").id,
    { owner: created.id, secret: created.secret },
  );
  return c.redirect(`/console/webhooks/${created.id}/secret`, 303);
}

/** The endpoint's new secret, taken from the session's flash: shown on the first view only. */
async function secretPage(gateway: Gateway, c: ConsoleContext, id: string) {
  const secret = await gateway.consoleSessions.takeFlash(c.get("session").id, id);
  return renderPage(
    c,
    <SecretOnce
      secret={secret}
      heading="The endpoint's signing secret"
      keep="it sealed"
      again="Rotate it to get a new one."
      back={{ href: `/console/webhooks/${id}`, label: "Go to the endpoint" }}
    />,
    { title: "Webhook secret", copyButtons: Boolean(secret) },
  );
}

export function webhookPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.use("/console/webhooks", requireOperator());
  app.use("/console/webhooks/*", requireOperator());
  app.get("/console/webhooks", (c) => webhooksPage(gateway, c));
  app.get("/console/webhooks/new", (c) => newEndpointPage(c, { gateway }));
  app.post("/console/webhooks", (c) => createEndpoint(gateway, c));
  app.get("/console/webhooks/:id/secret", (c) => {
    const id = c.req.param("id");
    if (!hasIdShape(id, "webhook")) throw webhookNotFound(id.slice(0, 80));
    return secretPage(gateway, c, id);
  });
  return app;
}
