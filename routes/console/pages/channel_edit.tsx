/**
 * Operator's channel edit: every setting of the channel (its type's own included), its model map,
 * and new upstream keys added to or replacing the current ones (shown by hint only). Saved through
 * the same call as PATCH /admin/channels/{id}, audited; a refusal is the form again with the
 * API's message and what was typed (keys excepted).
 */

import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { channelPatchBodySchema } from "../../../core/channels/channel_schema.ts";
import type { Gateway } from "../../../core/gateway.ts";
import { applyChannelPatch } from "../../admin/channels.ts";
import { channelNotFound } from "../../admin/shared.ts";
import { hasIdShape } from "../../params.ts";
import { validate } from "../../validation.ts";
import { channelPatchOf } from "../channel_form.ts";
import { ChannelFields, type FormValues, formValuesOf } from "../channel_fields.tsx";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";

export function channelIdOf(c: ConsoleContext): string {
  const id = c.req.param("id") ?? "";
  if (!hasIdShape(id, "channel")) throw channelNotFound(id.slice(0, 80));
  return id;
}

/** Applies a PATCH body from a console form, audited as PATCH /admin/channels/:id. */
export async function consolePatchChannel(
  gateway: Gateway,
  { c, id, body }: { c: ConsoleContext; id: string; body: Record<string, unknown> },
) {
  const patch = validate(channelPatchBodySchema, body);
  return await consoleChange(gateway, {
    c,
    change: {
      route: "/admin/channels/:id",
      method: "PATCH",
      target: { kind: "channel", id },
      readTarget: async (target) =>
        gateway.registry.channelView(await gateway.registry.getChannel(target)),
      apply: () => applyChannelPatch(gateway, id, patch),
    },
  });
}

async function editPage(
  gateway: Gateway,
  options: {
    c: ConsoleContext;
    id: string;
    values?: FormValues;
    problem?: string;
    status?: ContentfulStatusCode;
  },
) {
  const { c, id, problem } = options;
  const view = await gateway.registry.channelView(await gateway.registry.getChannel(id));
  const values = options.values ?? formValuesOf(view);
  return renderPage(
    c,
    <>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      {problem && values.keys?.trim()
        ? <p class="notice">Type the new upstream keys again: a page never holds them.</p>
        : null}
      <p>
        <a href={`/console/channels/${id}`}>Back to {view.name}</a>
      </p>
      <section class="card" aria-labelledby="edit-heading">
        <h2 id="edit-heading">Settings</h2>
        {view.source === "config"
          ? <p class="muted">The config file manages this channel: changes are refused.</p>
          : null}
        <form method="post" action={`/console/channels/${id}/edit`}>
          <CsrfField session={c.get("session")} />
          <ChannelFields type={view.type} mode="edit" values={values} hints={view.keys} />
          <p>
            <button type="submit">Save</button>
          </p>
        </form>
      </section>
      <CopyAsCurl
        id="curl-edit"
        curl={adminCurl(baseUrlOf(gateway, c.get("url")), {
          method: "PATCH",
          path: `/admin/channels/${id}`,
          body: { name: view.name, priority: view.priority, weight: view.weight },
        })}
      />
    </>,
    { title: `Edit ${view.name}`, copyButtons: true, status: options.status ?? 200 },
  );
}

export function channelEditPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.use("/console/channels/:id/edit", requireOperator());
  app.get("/console/channels/:id/edit", (c) => editPage(gateway, { c, id: channelIdOf(c) }));
  app.post("/console/channels/:id/edit", async (c) => {
    const id = channelIdOf(c);
    const fields = await readForm(c);
    try {
      await consolePatchChannel(gateway, { c, id, body: channelPatchOf(fields) });
    } catch (error) {
      const problem = formProblemOf(error);
      if (problem.status === 404) throw error;
      // Only the fields the form had are shown as typed; the rest as stored.
      const stored = formValuesOf(
        await gateway.registry.channelView(await gateway.registry.getChannel(id)),
      );
      return editPage(gateway, {
        c,
        id,
        values: { ...stored, ...fields },
        problem: problem.message,
        status: problem.status,
      });
    }
    return c.redirect(`/console/channels/${id}`, 303);
  });
  return app;
}
