/**
 * Operator's models: the catalog with prices, the channels serving each (a warning on an enabled
 * model no enabled channel serves; `?coverage=uncovered` lists only those), Disable/Enable (the
 * same service call as PATCH /admin/models/{id}, audited as the console session's), Add a model
 * (PUT /admin/models/{id}, prices typed in currency), and "what would this cost", a GET form
 * priced by the billing code's own functions that shows units × price = amount.
 */

import { Hono } from "hono";
import type { CatalogModel } from "../../../core/channels/catalog.ts";
import { modelPatchSchema } from "../../../core/channels/catalog.ts";
import type { Gateway } from "../../../core/gateway.ts";
import { validate } from "../../validation.ts";
import { type CostEstimate, costEstimate } from "../cost_estimate.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { GatewayError } from "../../../core/errors.ts";
import { newModelId } from "../../admin/shared.ts";
import { modelInputSchema } from "../../../core/channels/catalog.ts";
import { modelInputOf } from "../model_form.ts";
import { PriceFields } from "../model_price_fields.tsx";
import { coverageOf } from "../model_coverage.ts";
import { ServedBy } from "../served_by.tsx";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import type { ConsoleMoney } from "../money.tsx";
import { priceText } from "../price_text.ts";
import { isBaseTier, multiplierText, type PriceTier } from "../../../core/billing/price_tier.ts";

/** The catalog price, then the price each of the model's groups with a multiplier pays. */
function PriceCell(
  { model, tiers, money }: { model: CatalogModel; tiers: PriceTier[]; money: ConsoleMoney },
) {
  const own = tiers.filter((tier) => model.groups.includes(tier.group));
  return (
    <>
      {priceText(model, money)}
      {own.map((tier) => (
        <div class="muted">
          {tier.group} ×{multiplierText(tier.multiplier)}: {priceText(model, money, tier)}
        </div>
      ))}
    </>
  );
}

/** The model's detail page. */
export const modelHref = (id: string) => `/console/models/${encodeURIComponent(id)}`;

export function EnabledCell(
  { c, model, next }: { c: ConsoleContext; model: CatalogModel; next?: "detail" },
) {
  return (
    <form
      method="post"
      action={`${modelHref(model.id)}/enabled`}
      class="row"
    >
      <CsrfField session={c.get("session")} />
      {next ? <input type="hidden" name="next" value={next} /> : null}
      {model.enabled ? "enabled " : <span class="bad">disabled</span>}
      {model.enabled
        ? (
          <button
            type="submit"
            class="quiet"
            name="enabled"
            value="false"
            aria-label={`Disable ${model.id}`}
          >
            Disable
          </button>
        )
        : (
          <button
            type="submit"
            class="quiet"
            name="enabled"
            value="true"
            aria-label={`Enable ${model.id}`}
          >
            Enable
          </button>
        )}
    </form>
  );
}

function ModelRows(
  { c, models, tiers, gateway }: {
    c: ConsoleContext;
    models: CatalogModel[];
    tiers: PriceTier[];
    gateway: Gateway;
  },
) {
  const channels = gateway.registry.channels;
  return (
    <DataTable
      rows={models}
      empty="No model here."
      rowId={(model) => `model-${model.id}`}
      columns={[
        {
          header: "Model",
          cell: (model) => (
            <a href={modelHref(model.id)}>
              <code>{model.id}</code>
            </a>
          ),
        },
        { header: "Kind", cell: (model) => model.kind },
        { header: "Groups", cell: (model) => model.groups.join(", ") },
        {
          header: "Price",
          cell: (model) => <PriceCell model={model} tiers={tiers} money={c.get("money")} />,
        },
        {
          header: "Served by",
          cell: (model) => <ServedBy coverage={coverageOf(model, channels)} />,
        },
        { header: "State", cell: (model) => <EnabledCell c={c} model={model} /> },
      ]}
    />
  );
}

/** Add a model: its id, kind, price in currency, groups; shown open after a refusal. */
function AddModel(
  { c, values, problem }: { c: ConsoleContext; values?: Record<string, string>; problem?: string },
) {
  const typed = values ?? { kind: "text", groups: "default", enabled: "true" };
  return (
    <section class="card" aria-labelledby="add-heading">
      <h2 id="add-heading">Add a model</h2>
      <details id="add" open={values !== undefined}>
        <summary>Id, kind, price in currency, groups</summary>
        {problem ? <p class="error" role="alert">{problem}</p> : null}
        <form method="post" action="/console/models" class="model-form">
          <CsrfField session={c.get("session")} />
          <div class="fields">
            <Field
              name="id"
              id="add-id"
              label="Model id"
              value={typed.id ?? ""}
              hint="what callers send as `model`, e.g. gpt-4o-mini"
              required
            />
            <Field
              name="groups"
              id="add-groups"
              label="Groups"
              value={typed.groups ?? ""}
              hint="comma-separated; callers of these groups may use it"
            />
            <Field
              name="description"
              id="add-description"
              label="Description"
              value={typed.description ?? ""}
            />
          </div>
          <PriceFields values={typed} currency={c.get("money").format.currency} />
          <label class="choice">
            <input
              type="checkbox"
              name="enabled"
              value="true"
              checked={typed.enabled === "true"}
            />
            Enabled (served as soon as a channel lists it)
          </label>
          <p>
            <button type="submit">Add model</button>
          </p>
        </form>
      </details>
    </section>
  );
}

function Calculator(
  { models, url, estimate, money }: {
    models: CatalogModel[];
    url: URL;
    estimate?: CostEstimate;
    money: ConsoleMoney;
  },
) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  const field = (name: string, label: string, hint: string) => (
    <Field
      name={name}
      id={`cost-${name}`}
      label={label}
      inputmode={name === "size" || name === "quality" ? undefined : "numeric"}
      value={value(name)}
      hint={hint}
    />
  );
  return (
    <section class="card" aria-labelledby="cost-heading">
      <h2 id="cost-heading">What would this cost</h2>
      <form method="get" action="/console/models#cost-heading">
        <div class="fields">
          <Field
            name="model"
            id="cost-model"
            label="Model"
            value={value("model")}
            options={models.map((model) => [model.id, model.id] as const)}
          />
          {field(
            "input_tokens",
            "Input tokens",
            "text and embedding models, per-token rerank and audio models",
          )}
          {field("cached_input_tokens", "Cached input tokens", "text models; part of input")}
          {field("output_tokens", "Output tokens", "text models, per-token audio models")}
          {field("images", "Images", "image models")}
          {field("size", "Size", "image models, e.g. 1024x1024")}
          {field("quality", "Quality", "image models, e.g. high")}
          {field("seconds", "Seconds", "video models, per-second audio models (input audio)")}
          {field("documents", "Documents", "rerank models: one query over this many documents")}
          {field("characters", "Characters", "per-character audio (speech) models")}
          {field("group", "Group", "the caller's group, for its price tier (default ×1)")}
        </div>
        <p>
          <button type="submit">Calculate</button>
        </p>
      </form>
      {estimate && "problem" in estimate
        ? <p class="error" role="alert">{estimate.problem}</p>
        : null}
      {estimate && "pricing" in estimate
        ? (
          <div role="status" class="notice">
            <p>
              <span class="muted">Formula, in units:</span>{" "}
              <code id="cost-formula">{estimate.pricing.formula}</code>
            </p>
            <p>
              Amount: <strong id="cost-amount">{money.amount(estimate.pricing.amount)}</strong>{" "}
              <span class="muted">({estimate.pricing.amount} units)</span>
            </p>
          </div>
        )
        : null}
    </section>
  );
}

interface AddAttempt {
  values: Record<string, string>;
  problem: string;
  status: 400 | 409 | 404;
}

function modelsPage(gateway: Gateway, c: ConsoleContext, add?: AddAttempt) {
  const url = c.get("url");
  const models = gateway.registry.models;
  const onlyUncovered = url.searchParams.get("coverage") === "uncovered";
  const listed = onlyUncovered
    ? models.filter((model) => coverageOf(model, gateway.registry.channels).uncovered)
    : models;
  const tiers = gateway.groups.list()
    .map((group) => gateway.groups.tierOf(group.name))
    .filter((tier) => !isBaseTier(tier));
  const chosen = url.searchParams.get("model");
  let estimate: CostEstimate | undefined;
  if (chosen !== null) {
    const model = models.find((model) => model.id === chosen);
    const group = url.searchParams.get("group")?.trim();
    estimate = model
      ? costEstimate(
        model,
        Object.fromEntries(url.searchParams),
        group ? gateway.groups.tierOf(group) : undefined,
      )
      : { problem: `No model '${chosen.slice(0, 100)}' in the catalog` };
  }
  const base = baseUrlOf(gateway, url);
  const first = models[0]?.id ?? "gpt-test";
  return renderPage(
    c,
    <>
      <section class="card" aria-label="Models">
        {onlyUncovered
          ? (
            <p class="notice">
              {listed.length} enabled {listed.length === 1 ? "model" : "models"}{" "}
              that no enabled channel serves. <a href="/console/models">Show every model</a>
            </p>
          )
          : null}
        <ModelRows c={c} models={listed} tiers={tiers} gateway={gateway} />
      </section>
      <AddModel c={c} values={add?.values} problem={add?.problem} />
      <CopyAsCurl
        id="curl-list"
        curl={adminCurl(base, { method: "GET", path: "/admin/models" })}
      />
      <CopyAsCurl
        id="curl-enabled"
        curl={adminCurl(base, {
          method: "PATCH",
          path: `/admin/models/${encodeURIComponent(first)}`,
          body: { enabled: false },
        })}
      />
      <Calculator models={models} url={url} estimate={estimate} money={c.get("money")} />
    </>,
    {
      title: "Models",
      copyButtons: true,
      status: add?.status ?? (estimate && "problem" in estimate ? 400 : 200),
    },
  );
}

async function setEnabled(gateway: Gateway, c: ConsoleContext) {
  const id = c.req.param("id") ?? "";
  gateway.registry.getModel(id); // a 404 for an unknown model before anything is recorded
  const form = await readForm(c);
  const patch = validate(modelPatchSchema, { enabled: form.enabled === "true" });
  await consoleChange(gateway, {
    c,
    change: {
      route: "/admin/models/:id",
      method: "PATCH",
      target: { kind: "model", id },
      readTarget: (target) => gateway.registry.getModel(target),
      apply: () => gateway.registry.patchModel(id, patch),
    },
  });
  return c.redirect(form.next === "detail" ? modelHref(id) : "/console/models", 303);
}

function refuseExisting(gateway: Gateway, id: string): void {
  if (gateway.registry.models.some((model) => model.id === id)) {
    throw new GatewayError(
      "model_exists",
      409,
      `The catalog has a model '${id}' already: change it on its page`,
    );
  }
}

/** Add a model: the same write as PUT /admin/models/{id}, refused when the id is taken. */
async function addModel(gateway: Gateway, c: ConsoleContext) {
  const form = await readForm(c);
  const values = { ...form, csrf: "" };
  const id = (form.id ?? "").trim();
  try {
    if (!id) throw new GatewayError("invalid_request", 400, "The model id is required");
    newModelId(id);
    refuseExisting(gateway, id);
    const input = validate(modelInputSchema, modelInputOf(form));
    await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/models/:id",
        method: "PUT",
        target: { kind: "model", id },
        readTarget: (target) => gateway.registry.getModel(target),
        apply: () => gateway.registry.putModel(id, input),
      },
    });
  } catch (error) {
    const problem = formProblemOf(error);
    return modelsPage(gateway, c, {
      values,
      problem: problem.message,
      status: problem.status === 409 ? 409 : 400,
    });
  }
  return c.redirect(modelHref(id), 303);
}

export function modelPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/models", requireOperator(), (c) => modelsPage(gateway, c));
  app.post("/console/models", requireOperator(), (c) => addModel(gateway, c));
  app.post("/console/models/:id/enabled", requireOperator(), (c) => setEnabled(gateway, c));
  return app;
}
