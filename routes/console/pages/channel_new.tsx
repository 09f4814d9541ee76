/**
 * Operator's New channel and Clone: pick a type (every row of the provider table, with what it
 * serves), then its form; Clone opens the same form filled from a channel, keeping its upstream
 * keys on the server (they never reach the page). Create goes through the same service call as
 * POST /admin/channels, audited as the console session's; a refusal is the form again with the
 * API's message and what was typed (keys excepted).
 */

import { Hono } from "hono";
import { CHANNEL_TYPES, channelCreateSchema } from "../../../core/channels/channel_schema.ts";
import type { Gateway } from "../../../core/gateway.ts";
import { PROVIDERS } from "../../../core/providers/provider_table.ts";
import { channelNotFound } from "../../admin/shared.ts";
import { hasIdShape, queryValue } from "../../params.ts";
import { validate } from "../../validation.ts";
import { channelCreateOf } from "../channel_form.ts";
import {
  ChannelFields,
  describeType,
  type FormValues,
  formValuesOf,
  isChannelType,
} from "../channel_fields.tsx";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";

/** The type picker: a GET form, so the form of the chosen type is one plain link away. */
function TypePicker({ chosen }: { chosen?: string }) {
  return (
    <section class="card" aria-labelledby="type-heading">
      <h2 id="type-heading">Type</h2>
      <form method="get" action="/console/channels/new">
        <fieldset>
          <legend>What the upstream speaks</legend>
          {CHANNEL_TYPES.map((type, index) => (
            <label class="choice">
              <input
                type="radio"
                name="type"
                value={type}
                checked={chosen ? chosen === type : index === 0}
              />
              <span>
                <strong>{type}</strong> <span class="muted">— {describeType(type)}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <p>
          <button type="submit">Continue</button>
        </p>
      </form>
    </section>
  );
}

/** A clone's source: its id (checked), and its opened keys, which stay on the server. */
async function cloneSource(gateway: Gateway, from: string | undefined) {
  if (!from) return undefined;
  if (!hasIdShape(from, "channel")) throw channelNotFound(from.slice(0, 80));
  const stored = await gateway.registry.getChannel(from);
  const opened = await gateway.registry.openChannel(from);
  return { stored, keys: opened.keys };
}

async function newChannelPage(
  gateway: Gateway,
  options: { c: ConsoleContext; values?: FormValues; problem?: string; status?: 400 | 404 | 409 },
) {
  const { c, problem } = options;
  const url = c.get("url");
  const from = options.values?.from ?? queryValue(url, "from");
  const source = await cloneSource(gateway, from || undefined);
  const type = source?.stored.type ?? options.values?.type ?? queryValue(url, "type");
  const title = source ? `Clone ${source.stored.name}` : "New channel";
  if (!isChannelType(type)) {
    return renderPage(
      c,
      <>
        {problem ? <p class="error" role="alert">{problem}</p> : null}
        <TypePicker />
      </>,
      { title, status: problem ? options.status ?? 400 : 200 },
    );
  }
  const values: FormValues = options.values ??
    (source ? { ...formValuesOf(source.stored), name: `${source.stored.name} (copy)` } : { type });
  return renderPage(
    c,
    <>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      {problem && values.keys?.trim()
        ? <p class="notice">Type the upstream keys again: a page never holds them.</p>
        : null}
      <section class="card" aria-labelledby="form-heading">
        <h2 id="form-heading">{type}</h2>
        <p class="muted wrap">{describeType(type)}</p>
        {source ? null : (
          <p>
            <a href={`/console/channels/new`}>Choose another type</a>
          </p>
        )}
        <form method="post" action="/console/channels/new">
          <CsrfField session={c.get("session")} />
          {source ? <input type="hidden" name="from" value={source.stored.id} /> : null}
          <ChannelFields
            type={type}
            mode="create"
            values={values}
            keptKeys={source?.keys.length}
          />
          <p>
            <button type="submit">Create channel</button>
          </p>
        </form>
      </section>
      <CopyAsCurl
        id="curl-create"
        curl={adminCurl(baseUrlOf(gateway, url), {
          method: "POST",
          path: "/admin/channels",
          body: {
            name: values.name || "my channel",
            type,
            base_url: values.base_url || PROVIDERS[type].baseUrlExample,
            keys: ["$UPSTREAM_KEY"],
            models: ["model-id"],
          },
        })}
      />
    </>,
    { title, copyButtons: true, status: options.status ?? 200 },
  );
}

export function channelNewPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.use("/console/channels/new", requireOperator());
  app.get("/console/channels/new", (c) => newChannelPage(gateway, { c }));
  app.post("/console/channels/new", async (c) => {
    const fields = await readForm(c);
    const values = { ...fields, enabled: fields.enabled ?? "" };
    let created: { id: string };
    try {
      const source = await cloneSource(gateway, fields.from || undefined);
      const { create_models, ...input } = validate(
        channelCreateSchema,
        channelCreateOf(fields, source?.keys),
      );
      created = await consoleChange(gateway, {
        c,
        change: {
          route: "/admin/channels",
          method: "POST",
          target: { kind: "channel", id: null },
          readTarget: async (id) =>
            gateway.registry.channelView(await gateway.registry.getChannel(id)),
          apply: () => gateway.registry.createChannel(input, { createModels: create_models }),
          outcomeOf: (result) => ({ status: 201, createdId: result.id }),
        },
      });
    } catch (error) {
      const problem = formProblemOf(error);
      return newChannelPage(gateway, {
        c,
        values,
        problem: problem.message,
        status: problem.status === 404 || problem.status === 409 ? problem.status : 400,
      });
    }
    return c.redirect(`/console/channels/${created.id}`, 303);
  });
  return app;
}
