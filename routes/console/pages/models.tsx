/**
 * Operator's models: the catalog with prices, Disable/Enable (the same service call as PATCH
 * /admin/models/{id}, audited as the console session's), and "what would this cost", a GET form
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
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl, formatUnits } from "../snippets.ts";
import { priceText } from "../price_text.ts";
import { isBaseTier, multiplierText, type PriceTier } from "../../../core/billing/price_tier.ts";

/** The catalog price, then the price each of the model's groups with a multiplier pays. */
function PriceCell({ model, tiers }: { model: CatalogModel; tiers: PriceTier[] }) {
  const own = tiers.filter((tier) => model.groups.includes(tier.group));
  return (
    <>
      {priceText(model)}
      {own.map((tier) => (
        <div class="muted">
          {tier.group} ×{multiplierText(tier.multiplier)}: {priceText(model, tier)}
        </div>
      ))}
    </>
  );
}

function EnabledCell({ c, model }: { c: ConsoleContext; model: CatalogModel }) {
  return (
    <form
      method="post"
      action={`/console/models/${encodeURIComponent(model.id)}/enabled`}
      class="row"
    >
      <CsrfField session={c.get("session")} />
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
  { c, models, tiers }: { c: ConsoleContext; models: CatalogModel[]; tiers: PriceTier[] },
) {
  return (
    <DataTable
      rows={models}
      empty="No model in the catalog."
      columns={[
        { header: "Model", cell: (model) => <code>{model.id}</code> },
        { header: "Kind", cell: (model) => model.kind },
        { header: "Groups", cell: (model) => model.groups.join(", ") },
        { header: "Price", cell: (model) => <PriceCell model={model} tiers={tiers} /> },
        { header: "State", cell: (model) => <EnabledCell c={c} model={model} /> },
      ]}
    />
  );
}

function Calculator(
  { models, url, estimate }: { models: CatalogModel[]; url: URL; estimate?: CostEstimate },
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
              <code id="cost-formula">{estimate.pricing.formula}</code>
            </p>
            <p>
              Amount: <strong id="cost-amount">{formatUnits(estimate.pricing.amount)}</strong>{" "}
              <span class="muted">({estimate.pricing.amount} units)</span>
            </p>
          </div>
        )
        : null}
    </section>
  );
}

function modelsPage(gateway: Gateway, c: ConsoleContext) {
  const url = c.get("url");
  const models = gateway.registry.models;
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
        <ModelRows c={c} models={models} tiers={tiers} />
      </section>
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
      <Calculator models={models} url={url} estimate={estimate} />
    </>,
    {
      title: "Models",
      copyButtons: true,
      status: estimate && "problem" in estimate ? 400 : 200,
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
  return c.redirect("/console/models", 303);
}

export function modelPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/models", requireOperator(), (c) => modelsPage(gateway, c));
  app.post("/console/models/:id/enabled", requireOperator(), (c) => setEnabled(gateway, c));
  return app;
}
