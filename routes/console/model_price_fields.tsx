/**
 * A model's kind and price fields for the console's model forms: a radio per kind, then each
 * kind's fieldset of its plans (model_price_forms.ts), amounts typed in currency. The stylesheet
 * shows only the chosen kind's and plan's fields; without it every fieldset is there, labelled.
 * The form around them carries the class `model-form`.
 */

import { Field } from "./field.tsx";
import {
  fieldName,
  MODEL_KINDS,
  plansOf,
  type PricePlan,
  SPARE_TIER_ROWS,
  tierRowsIn,
} from "./model_price_forms.ts";

type Values = Record<string, string>;

/** The hint of a money field: in the operator's currency, to the unit (a millionth). */
const moneyHint = (currency: string) => `in ${currency}, up to 6 decimals`;

function PlanFields(
  { kind, plan, values, currency }: {
    kind: string;
    plan: PricePlan;
    values: Values;
    currency: string;
  },
) {
  return (
    <div class="fields">
      {plan.fields.map((field) => {
        const name = fieldName(kind, field.name);
        const hint = [field.type === "percent" ? "" : moneyHint(currency), field.hint ?? ""]
          .filter(Boolean).join("; ");
        return (
          <Field
            name={name}
            id={`${kind}-${field.name}`}
            label={`${field.label} (${field.type === "percent" ? "" : `${currency} `}${field.per})`}
            value={values[name] ?? ""}
            inputmode={field.type === "percent" ? "numeric" : "decimal"}
            hint={hint}
          />
        );
      })}
    </div>
  );
}

function TierRows({ values, currency }: { values: Values; currency: string }) {
  const rows = tierRowsIn(values) + SPARE_TIER_ROWS;
  const field = (part: string, row: number, label: string, hint?: string) => {
    const name = fieldName("image", `tier_${part}.${row}`);
    return (
      <Field
        name={name}
        id={`image-tier-${part}-${row}`}
        label={`Tier ${row + 1} ${label}`}
        value={values[name] ?? ""}
        inputmode={part === "price" ? "decimal" : undefined}
        hint={hint}
      />
    );
  };
  return (
    <fieldset>
      <legend>Size and quality tiers</legend>
      <p class="muted">
        A tier prices one size, one quality or both (empty: any); the most specific tier applies,
        else the price per image. Empty rows are ignored; empty a row to remove its tier.
      </p>
      {Array.from({ length: rows }, (_, row) => (
        <div class="fields">
          {field("size", row, "size", "e.g. 1024x1024")}
          {field("quality", row, "quality", "e.g. high")}
          {field("price", row, `price (${currency} per image)`, moneyHint(currency))}
        </div>
      ))}
    </fieldset>
  );
}

function KindPrice(
  { kind, values, currency }: { kind: string; values: Values; currency: string },
) {
  const plans = plansOf(kind);
  const planName = fieldName(kind, "plan");
  const chosen = values[planName] ?? plans[0]?.id;
  return (
    <fieldset id={`price-${kind}`}>
      <legend>Price of a {kind} model</legend>
      {plans.length > 1
        ? (
          <div class="row" role="radiogroup" aria-label={`How a ${kind} model is billed`}>
            {plans.map((plan) => (
              <label class="choice">
                <input
                  type="radio"
                  name={planName}
                  id={`plan-${kind}-${plan.id}`}
                  value={plan.id}
                  checked={plan.id === chosen}
                />
                {plan.label}
              </label>
            ))}
          </div>
        )
        : <input type="hidden" name={planName} value={plans[0]?.id} />}
      {plans.map((plan) => (
        <div id={`plan-${kind}-${plan.id}-fields`}>
          {plans.length > 1 ? <p class="muted">{plan.label}:</p> : null}
          <PlanFields kind={kind} plan={plan} values={values} currency={currency} />
          {plan.tiers ? <TierRows values={values} currency={currency} /> : null}
        </div>
      ))}
    </fieldset>
  );
}

/**
 * The kind radios and every kind's price fields, filled from `values` (form field names), money
 * in `currency` (the operator's).
 */
export function PriceFields({ values, currency }: { values: Values; currency: string }) {
  const kind = values.kind && MODEL_KINDS.includes(values.kind) ? values.kind : MODEL_KINDS[0];
  return (
    <>
      <fieldset>
        <legend>Kind</legend>
        <div class="row">
          {MODEL_KINDS.map((option) => (
            <label class="choice">
              <input
                type="radio"
                name="kind"
                id={`kind-${option}`}
                value={option}
                checked={option === kind}
              />
              {option}
            </label>
          ))}
        </div>
      </fieldset>
      {MODEL_KINDS.map((option) => (
        <KindPrice key={option} kind={option} values={values} currency={currency} />
      ))}
    </>
  );
}
