/**
 * Operator's model detail: facts, the channels serving it (with the warning when no enabled one
 * does), Disable/Enable, Price (kind and price typed in currency), Groups, and Delete. Changes are
 * the same service calls as PATCH and DELETE /admin/models/{id}, audited as the console session's.
 */

import { Hono } from "hono";
import { type CatalogModel, modelPatchSchema } from "../../../core/channels/catalog.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import { validate } from "../../validation.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { readForm } from "../form_body.ts";
import { type FormProblem, formProblemOf } from "../form_problem.ts";
import { Field } from "../field.tsx";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { priceText } from "../price_text.ts";
import { coverageOf } from "../model_coverage.ts";
import { ServedBy } from "../served_by.tsx";
import { PriceFields } from "../model_price_fields.tsx";
import { formOfPrice } from "../model_price_forms.ts";
import { groupsPatchOf, pricePatchOf } from "../model_form.ts";
import { EnabledCell, modelHref } from "./models.tsx";

const adminPath = (id: string) => `/admin/models/${encodeURIComponent(id)}`;

/** What an operator does about the warning. */
function UncoveredHelp() {
  return (
    <p class="muted">
      Callers get an error until an enabled channel lists this model for one of its groups: add it
      to the models of a channel on its page (<a href={CHANNELS_PAGE}>Channels</a>).
    </p>
  );
}

const CHANNELS_PAGE = "/console/channels";

/** A refused form, shown again in its section with what was typed. */
interface Refusal {
  form: "price" | "groups" | "delete";
  problem: string;
  values: Record<string, string>;
  status: FormProblem["status"];
}

function Problem({ refusal, form }: { refusal?: Refusal; form: Refusal["form"] }) {
  return refusal?.form === form ? <p class="error" role="alert">{refusal.problem}</p> : null;
}

function PriceSection(
  { c, model, refusal, base }: {
    c: ConsoleContext;
    model: CatalogModel;
    refusal?: Refusal;
    base: string;
  },
) {
  const values = refusal?.form === "price"
    ? refusal.values
    : formOfPrice(model.kind, model.price as Record<string, unknown>);
  return (
    <section class="card" aria-labelledby="price-heading">
      <h2 id="price-heading">Price</h2>
      <p>{priceText(model, c.get("money"))}</p>
      <Problem refusal={refusal} form="price" />
      <form method="post" action={`${modelHref(model.id)}/price`} class="model-form">
        <CsrfField session={c.get("session")} />
        <PriceFields values={values} currency={c.get("money").format.currency} />
        <p>
          <button type="submit">Save price</button>
        </p>
      </form>
      <CopyAsCurl
        id="curl-price"
        curl={adminCurl(base, {
          method: "PATCH",
          path: adminPath(model.id),
          body: { kind: model.kind, price: model.price },
        })}
      />
    </section>
  );
}

function GroupsSection(
  { c, model, refusal, known }: {
    c: ConsoleContext;
    model: CatalogModel;
    refusal?: Refusal;
    known: string[];
  },
) {
  const value = refusal?.form === "groups" ? refusal.values.groups : model.groups.join(", ");
  return (
    <section class="card" aria-labelledby="groups-heading">
      <h2 id="groups-heading">Groups</h2>
      <Problem refusal={refusal} form="groups" />
      <form method="post" action={`${modelHref(model.id)}/groups`}>
        <CsrfField session={c.get("session")} />
        <Field
          name="groups"
          id="model-groups"
          label="Groups"
          value={value}
          hint={`comma-separated; callers of these groups may use it${
            known.length ? ` (groups with a price tier: ${known.join(", ")})` : ""
          }`}
        />
        <p>
          <button type="submit">Save groups</button>
        </p>
      </form>
    </section>
  );
}

function DeleteSection(
  { c, model, refusal, base }: {
    c: ConsoleContext;
    model: CatalogModel;
    refusal?: Refusal;
    base: string;
  },
) {
  return (
    <section class="card" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete</h2>
      <p class="muted">
        Callers of <code>{model.id}</code> get 404 once it is deleted
        {model.source === "default" ? "; a built-in model stays deleted" : ""}. A model a channel
        lists cannot be deleted: remove it from the channel first, or disable it.
      </p>
      <Problem refusal={refusal} form="delete" />
      <form method="post" action={`${modelHref(model.id)}/delete`}>
        <CsrfField session={c.get("session")} />
        <label class="choice">
          <input type="checkbox" name="confirm" value={model.id} required />
          Delete {model.id}
        </label>
        <p>
          <button type="submit" class="danger">Delete model</button>
        </p>
      </form>
      <CopyAsCurl
        id="curl-delete"
        curl={adminCurl(base, { method: "DELETE", path: adminPath(model.id) })}
      />
    </section>
  );
}

function modelDetailPage(gateway: Gateway, c: ConsoleContext, id: string, refusal?: Refusal) {
  const model = gateway.registry.getModel(id);
  const coverage = coverageOf(model, gateway.registry.channels);
  const base = baseUrlOf(gateway, c.get("url"));
  const path = adminPath(id);
  const known = gateway.groups.list().map((group) => group.name);
  return renderPage(
    c,
    <>
      <section class="card" aria-labelledby="facts-heading">
        <h2 id="facts-heading">Model</h2>
        <dl class="facts">
          <dt>Id</dt>
          <dd>
            <code>{model.id}</code>
          </dd>
          <dt>Kind</dt>
          <dd>{model.kind}</dd>
          <dt>Groups</dt>
          <dd>{model.groups.join(", ") || "none"}</dd>
          <dt>Price</dt>
          <dd>{priceText(model, c.get("money"))}</dd>
          <dt>Served by</dt>
          <dd>
            <ServedBy coverage={coverage} />
          </dd>
          <dt>State</dt>
          <dd>
            <EnabledCell c={c} model={model} next="detail" />
          </dd>
          <dt>Source</dt>
          <dd>
            {model.source === "default"
              ? "built in"
              : model.source === "config"
              ? "config file (changes are refused)"
              : "admin"}
          </dd>
          {model.description
            ? (
              <>
                <dt>Description</dt>
                <dd>{model.description}</dd>
              </>
            )
            : null}
        </dl>
        {coverage.uncovered ? <UncoveredHelp /> : null}
        <CopyAsCurl id="curl-read" curl={adminCurl(base, { method: "GET", path })} />
      </section>
      <PriceSection c={c} model={model} refusal={refusal} base={base} />
      <GroupsSection c={c} model={model} refusal={refusal} known={known} />
      <DeleteSection c={c} model={model} refusal={refusal} base={base} />
    </>,
    { title: `Model ${model.id}`, copyButtons: true, status: refusal?.status ?? 200 },
  );
}

/** Runs one of the detail page's forms; a 4xx shows the page again with the problem. */
async function modelForm(
  gateway: Gateway,
  c: ConsoleContext,
  { form, change }: {
    form: Refusal["form"];
    change: (id: string, fields: Record<string, string>) => Promise<unknown>;
  },
) {
  const id = c.req.param("id") ?? "";
  gateway.registry.getModel(id); // a 404 for an unknown model before anything is recorded
  const fields = await readForm(c);
  try {
    await change(id, fields);
  } catch (error) {
    const problem = formProblemOf(error);
    return modelDetailPage(gateway, c, id, {
      form,
      problem: problem.message,
      values: { ...fields, csrf: "" },
      status: problem.status,
    });
  }
  return c.redirect(form === "delete" ? "/console/models" : modelHref(id), 303);
}

function patchModel(gateway: Gateway, c: ConsoleContext, id: string, body: unknown) {
  const patch = validate(modelPatchSchema, body);
  return consoleChange(gateway, {
    c,
    change: {
      route: "/admin/models/:id",
      method: "PATCH",
      target: { kind: "model", id },
      readTarget: (target) => gateway.registry.getModel(target),
      apply: () => gateway.registry.patchModel(id, patch),
    },
  });
}

export function modelDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.use("/console/models/:id/*", requireOperator());
  app.get(
    "/console/models/:id",
    requireOperator(),
    (c) => modelDetailPage(gateway, c, c.req.param("id") ?? ""),
  );
  app.post("/console/models/:id/price", (c) =>
    modelForm(gateway, c, {
      form: "price",
      change: (id, fields) => patchModel(gateway, c, id, pricePatchOf(fields)),
    }));
  app.post("/console/models/:id/groups", (c) =>
    modelForm(gateway, c, {
      form: "groups",
      change: (id, fields) => patchModel(gateway, c, id, groupsPatchOf(fields)),
    }));
  app.post("/console/models/:id/delete", (c) =>
    modelForm(gateway, c, {
      form: "delete",
      change: (id, fields) => {
        if (fields.confirm !== id) {
          throw new GatewayError(
            "invalid_request",
            400,
            `Tick "Delete ${id}" to confirm the deletion`,
          );
        }
        return consoleChange(gateway, {
          c,
          change: {
            route: "/admin/models/:id",
            method: "DELETE",
            target: { kind: "model", id },
            readTarget: (target) => gateway.registry.getModel(target),
            apply: () => gateway.registry.deleteModel(id),
            outcomeOf: () => ({ status: 204 }),
          },
        });
      },
    }));
  return app;
}
