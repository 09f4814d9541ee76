/**
 * Operator's "Fetch models": the upstream's own model list read with one of the channel's keys
 * (core/upstream/upstream_models.ts), offered as checkboxes with the public name each is served
 * under; Save writes the channel's models and model map through the same call as
 * PATCH /admin/channels/{id}, audited. The list is read on a POST (it spends a call with the
 * channel's key), and shown in the answer.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { fetchUpstreamModels } from "../../admin/upstream_models.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { readForm, readFormValues } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { type ModelPick, modelPicks, postedPicks, savedModels } from "../model_picks.ts";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { channelIdOf, consolePatchChannel } from "./channel_edit.tsx";

function PickRows({ picks }: { picks: ModelPick[] }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Serve</th>
            <th scope="col">Upstream model</th>
            <th scope="col">Public name (catalog id)</th>
          </tr>
        </thead>
        <tbody>
          {picks.map((pick, index) => (
            <tr>
              <td>
                <input
                  type="checkbox"
                  name="serve"
                  value={String(index)}
                  id={`serve-${index}`}
                  checked={pick.served}
                  aria-label={`Serve ${pick.upstream}`}
                />
                <input type="hidden" name={`upstream.${index}`} value={pick.upstream} />
                <input type="hidden" name={`listed.${index}`} value={pick.listed ? "1" : "0"} />
              </td>
              <td>
                <label for={`serve-${index}`} class="inline">
                  <code>{pick.upstream}</code>
                </label>
                {pick.label && pick.label !== pick.upstream
                  ? <span class="muted">{pick.label}</span>
                  : null}
                {pick.listed ? null : (
                  <>
                    <span class="badge">not in the upstream's list</span>
                  </>
                )}
              </td>
              <td>
                <input
                  type="text"
                  name={`public.${index}`}
                  value={pick.public}
                  aria-label={`Public name of ${pick.upstream}`}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

async function picksPage(
  gateway: Gateway,
  options: {
    c: ConsoleContext;
    id: string;
    picks: ModelPick[];
    createModels: boolean;
    problem?: string;
    status?: 200 | 400 | 409;
    count?: number;
  },
) {
  const { c, id, picks } = options;
  const view = await gateway.registry.channelView(await gateway.registry.getChannel(id));
  const saved = savedModels(picks);
  return renderPage(
    c,
    <>
      {options.problem ? <p class="error" role="alert">{options.problem}</p> : null}
      <p>
        <a href={`/console/channels/${id}`}>Back to {view.name}</a>
      </p>
      <section class="card" aria-labelledby="picks-heading">
        <h2 id="picks-heading">Models from the upstream</h2>
        {options.count === undefined ? null : (
          <p role="status" class="notice">
            The upstream lists {options.count} model{options.count === 1 ? "" : "s"}.
          </p>
        )}
        <p class="muted">
          Tick the models this channel serves. Each is served under its public name (a catalog id);
          a public name other than the upstream's goes into the model map. Saving replaces the
          channel's models and model map.
        </p>
        <form method="post" action={`/console/channels/${id}/models`}>
          <CsrfField session={c.get("session")} />
          <PickRows picks={picks} />
          <label class="choice">
            <input type="checkbox" name="create_models" checked={options.createModels} />
            Add models the catalog lacks (disabled at price 0 until priced on the Models page)
          </label>
          <p>
            <button type="submit">Save models</button>
          </p>
        </form>
      </section>
      <CopyAsCurl
        id="curl-models"
        curl={adminCurl(baseUrlOf(gateway, c.get("url")), {
          method: "PATCH",
          path: `/admin/channels/${id}`,
          body: { ...saved, create_models: true },
        })}
      />
    </>,
    { title: `Models of ${view.name}`, copyButtons: true, status: options.status ?? 200 },
  );
}

export function channelModelPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.use("/console/channels/:id/models", requireOperator());
  app.use("/console/channels/:id/models/*", requireOperator());
  app.post("/console/channels/:id/models/fetch", async (c) => {
    const id = channelIdOf(c);
    const channel = await gateway.registry.openChannel(id);
    const result = await fetchUpstreamModels(channel, { signal: c.req.raw.signal });
    if (!result.ok) {
      const status = result.status ? ` (upstream status ${result.status})` : "";
      return picksPage(gateway, {
        c,
        id,
        picks: modelPicks(channel, []),
        createModels: true,
        problem: `The upstream's model list could not be read${status}: ${result.error}`,
        status: 200,
      });
    }
    return picksPage(gateway, {
      c,
      id,
      picks: modelPicks(channel, result.models),
      createModels: true,
      count: result.models.length,
    });
  });
  app.post("/console/channels/:id/models", async (c) => {
    const id = channelIdOf(c);
    const fields = await readForm(c);
    const picks = postedPicks(fields, await readFormValues(c, "serve"));
    const createModels = fields.create_models === "on";
    try {
      await consolePatchChannel(gateway, {
        c,
        id,
        body: { ...savedModels(picks), ...(createModels && { create_models: true }) },
      });
    } catch (error) {
      const problem = formProblemOf(error);
      if (problem.status === 404) throw error;
      return picksPage(gateway, {
        c,
        id,
        picks,
        createModels,
        problem: problem.message,
        status: problem.status === 409 ? 409 : 400,
      });
    }
    return c.redirect(`/console/channels/${id}`, 303);
  });
  return app;
}
