/**
 * The account's models for members: each model its group may use that a channel serves, with the
 * catalog price and the price the account pays (its group's price tier applied).
 */

import { Hono } from "hono";
import { AccountArea } from "../../../core/account_area/account_area.ts";
import { isBaseTier, multiplierText } from "../../../core/billing/price_tier.ts";
import type { Gateway } from "../../../core/gateway.ts";
import type { ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { accountActorOf } from "../member_actor.ts";
import { priceText } from "../price_text.ts";
import { renderPage } from "../render.tsx";

type PricedModel = Awaited<ReturnType<AccountArea["priced"]>>["models"][number];

export function memberModelPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const area = new AccountArea(gateway);
  app.get("/console/account/models", async (c) => {
    const actor = await accountActorOf(gateway, c);
    const { tier, models } = await area.priced(actor);
    const discounted = !isBaseTier(tier);
    return renderPage(
      c,
      <section class="card" aria-labelledby="models-heading">
        <h2 id="models-heading">Models</h2>
        <p class="muted" id="tier">
          {discounted
            ? `Your account's group ${tier.group} pays ×${
              multiplierText(tier.multiplier)
            } of the catalog price; the price column is what you pay.`
            : "Your account pays the catalog price."}
        </p>
        <DataTable<PricedModel>
          rows={models}
          empty="No model is available to this account yet."
          columns={[
            { header: "Model", cell: (model) => <code>{model.id}</code> },
            { header: "Kind", cell: (model) => model.kind },
            { header: "Your price", cell: (model) => priceText(model.model, c.get("money"), tier) },
            discounted && {
              header: "Catalog price",
              cell: (model) => priceText(model.model, c.get("money")),
              cellClass: "muted",
            },
          ]}
        />
      </section>,
      { title: "Models" },
    );
  });
  return app;
}
