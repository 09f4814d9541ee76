/**
 * The console's price form of each model kind, as data: a kind has one or more plans (video: per
 * second or per task), a plan is the flat price object the catalog stores, one field each, typed
 * in currency per the unit that matters. A new kind slots in with one entry here (the test checks
 * every kind of the catalog has one). Pure: form fields in, a price in units out, and back.
 */

import { modelKindSchema } from "../../core/channels/catalog.ts";
import { GatewayError } from "../../core/errors.ts";
import { currencyOfUnits, unitsOfCurrency } from "./currency_units.ts";

export interface PriceField {
  /** The key in the stored price object. */
  name: string;
  label: string;
  /** The unit the amount is for, e.g. `per 1M input tokens`. */
  per: string;
  /** Money in currency (default), or a whole percent. */
  type?: "money" | "percent";
  /** Left empty, the field is left out of the price. */
  optional?: boolean;
  hint?: string;
}

export interface PricePlan {
  /** Unique within its kind. */
  id: string;
  label: string;
  fields: readonly PriceField[];
  /** Image prices: size/quality tiers beside the base price. */
  tiers?: boolean;
}

const money = (name: string, label: string, per: string, extra: Partial<PriceField> = {}) => ({
  name,
  label,
  per,
  ...extra,
});

/**
 * Each kind's plans. Kinds the catalog does not know (yet) are never offered; issue 34's kinds
 * are here so their forms exist the day the catalog takes them.
 */
export const PRICE_PLANS: Readonly<Record<string, readonly PricePlan[]>> = {
  text: [{
    id: "tokens",
    label: "Per token",
    fields: [
      money("input", "Input", "per 1M tokens"),
      money("cached_input", "Cached input", "per 1M tokens", {
        optional: true,
        hint: "empty: the input price",
      }),
      money("output", "Output", "per 1M tokens"),
    ],
  }],
  image: [{
    id: "per_image",
    label: "Per image",
    fields: [money("per_image", "Per image", "per image", { hint: "any size and quality" })],
    tiers: true,
  }],
  video: [
    { id: "per_second", label: "Per second", fields: [money("per_second", "Price", "per second")] },
    {
      id: "per_task",
      label: "Per task",
      fields: [
        money("per_task", "Price", "per task"),
        {
          name: "failure_refund_percent",
          label: "Refund when a task fails",
          per: "percent",
          type: "percent",
          optional: true,
          hint: "0–100, default 100",
        },
      ],
    },
  ],
  embedding: [{
    id: "tokens",
    label: "Per token",
    fields: [money("input", "Input", "per 1M tokens")],
  }],
  rerank: [
    { id: "per_search", label: "Per search", fields: [money("per_search", "Price", "per search")] },
    { id: "tokens", label: "Per token", fields: [money("input", "Input", "per 1M tokens")] },
  ],
  moderation: [{
    id: "per_request",
    label: "Per request",
    fields: [money("per_request", "Price", "per request", { hint: "0: free" })],
  }],
  audio: [
    { id: "per_second", label: "Per second", fields: [money("per_second", "Price", "per second")] },
    {
      id: "tokens",
      label: "Per token",
      fields: [
        money("input", "Input", "per 1M tokens"),
        money("output", "Output", "per 1M tokens"),
      ],
    },
    {
      id: "per_character",
      label: "Per character",
      fields: [money("per_character", "Price", "per character")],
    },
  ],
};

/** The kinds a model may have, in the catalog's order: the one list (core/channels/catalog.ts). */
export const MODEL_KINDS: readonly string[] = modelKindSchema.options;

/** Rows of empty tier fields a form offers under the model's own. */
export const SPARE_TIER_ROWS = 2;

export function plansOf(kind: string): readonly PricePlan[] {
  return PRICE_PLANS[kind] ?? [];
}

/** The form field of `field` of a kind, e.g. `text.input`; a kind's plan choice is `video.plan`. */
export const fieldName = (kind: string, field: string) => `${kind}.${field}`;

const invalid = (message: string) => new GatewayError("invalid_request", 400, message);

function percentOf(text: string, label: string): number {
  const typed = text.trim();
  if (!/^\d{1,3}$/.test(typed) || Number(typed) > 100) {
    throw invalid(`${label} must be a whole percent from 0 to 100, not '${typed.slice(0, 40)}'`);
  }
  return Number(typed);
}

function tierPart(text: string, label: string): string {
  const typed = text.trim() || "*";
  if (typed.length > 40 || /[\s/]/.test(typed)) {
    throw invalid(`A tier's ${label} is a word without spaces or '/', not '${typed.slice(0, 40)}'`);
  }
  return typed;
}

/** The image tiers typed in rows `image.tier_size.N`, `image.tier_quality.N`, `image.tier_price.N`. */
function tiersOf(fields: Record<string, string>): Record<string, number> {
  const tiers: Record<string, number> = {};
  for (let row = 0;; row++) {
    const at = (part: string) => fields[fieldName("image", `tier_${part}.${row}`)];
    if (at("size") === undefined && at("price") === undefined) return tiers;
    const [size, quality, price] = [at("size") ?? "", at("quality") ?? "", at("price") ?? ""];
    if (!size.trim() && !quality.trim() && !price.trim()) continue;
    const key = `${tierPart(size, "size")}/${tierPart(quality, "quality")}`;
    if (key === "*/*") throw invalid("A tier names a size, a quality or both");
    const units = unitsOfCurrency(price, `The price of tier ${key}`);
    if (typeof units !== "number") throw invalid(units.problem);
    tiers[key] = units;
  }
}

/** The price of `kind` typed in `fields` (the chosen plan's fields only), in units; 400 if bad. */
export function priceOfForm(kind: string, fields: Record<string, string>): Record<string, unknown> {
  const plans = plansOf(kind);
  if (!MODEL_KINDS.includes(kind) || plans.length === 0) {
    throw invalid(`The kind must be one of ${MODEL_KINDS.join(", ")}, not '${kind.slice(0, 40)}'`);
  }
  const chosen = fields[fieldName(kind, "plan")] ?? plans[0].id;
  const plan = plans.find((plan) => plan.id === chosen);
  if (!plan) {
    throw invalid(`A ${kind} price is ${plans.map((plan) => plan.label).join(" or ")}`);
  }
  const price: Record<string, unknown> = {};
  for (const field of plan.fields) {
    const text = (fields[fieldName(kind, field.name)] ?? "").trim();
    const label = `${field.label} (${field.per})`;
    if (text === "") {
      if (field.optional) continue;
      throw invalid(`${label} is required`);
    }
    if (field.type === "percent") {
      price[field.name] = percentOf(text, label);
      continue;
    }
    const units = unitsOfCurrency(text, label);
    if (typeof units !== "number") throw invalid(units.problem);
    price[field.name] = units;
  }
  if (plan.tiers) {
    const tiers = tiersOf(fields);
    if (Object.keys(tiers).length) price.tiers = tiers;
  }
  return price;
}

/** The plan a stored price is of: the one whose fields it has (the kind's first when none). */
export function planOf(kind: string, price: Record<string, unknown>): PricePlan | undefined {
  const plans = plansOf(kind);
  return plans.find((plan) =>
    plan.fields.every((field) => field.optional || field.name in price) &&
    Object.keys(price).every((name) =>
      (plan.tiers && name === "tiers") || plan.fields.some((field) => field.name === name)
    )
  ) ?? plans[0];
}

/** A stored model's kind and price as the form's field values (currency, not units). */
export function formOfPrice(
  kind: string,
  price: Record<string, unknown>,
): Record<string, string> {
  const plan = planOf(kind, price);
  const values: Record<string, string> = { kind };
  if (!plan) return values;
  values[fieldName(kind, "plan")] = plan.id;
  for (const field of plan.fields) {
    const value = price[field.name];
    if (typeof value !== "number") continue;
    values[fieldName(kind, field.name)] = field.type === "percent"
      ? String(value)
      : currencyOfUnits(value);
  }
  const tiers = Object.entries((price.tiers ?? {}) as Record<string, number>);
  tiers.forEach(([key, units], row) => {
    const [size, quality] = key.split("/");
    values[fieldName("image", `tier_size.${row}`)] = size === "*" ? "" : size;
    values[fieldName("image", `tier_quality.${row}`)] = quality === "*" ? "" : quality ?? "";
    values[fieldName("image", `tier_price.${row}`)] = currencyOfUnits(units);
  });
  return values;
}

/** How many tier rows the typed values fill (the form shows these and SPARE_TIER_ROWS more). */
export function tierRowsIn(values: Record<string, string>): number {
  let rows = 0;
  while (
    values[fieldName("image", `tier_size.${rows}`)] !== undefined ||
    values[fieldName("image", `tier_price.${rows}`)] !== undefined
  ) rows++;
  return rows;
}

/**
 * The stylesheet rules that show only the chosen kind's price fields and the chosen plan's, by
 * `:has()`, no JavaScript; a browser without `:has()` shows every fieldset, each labelled.
 */
export function priceFormCss(): string {
  const rules: string[] = [];
  for (const kind of Object.keys(PRICE_PLANS)) {
    rules.push(`.model-form:has(#kind-${kind}:not(:checked)) #price-${kind}{display:none}`);
    const plans = plansOf(kind);
    if (plans.length < 2) continue;
    for (const plan of plans) {
      const id = `plan-${kind}-${plan.id}`;
      rules.push(`.model-form:has(#${id}:not(:checked)) #${id}-fields{display:none}`);
    }
  }
  return rules.join("\n");
}
