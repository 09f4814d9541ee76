/**
 * How the console shows money: the operator's currency (an ISO 4217 code) and display precision
 * (2-6 decimals). A display setting only: stored money stays integer units (1 unit = 0.000001 of
 * the currency) whatever it says. Kept in KV; without a stored setting the process's defaults
 * (GATEWAY_CURRENCY, GATEWAY_MONEY_DECIMALS) apply.
 */

import { z } from "zod";
import { GatewayError } from "../errors.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import {
  currencyProblem,
  decimalsProblem,
  DEFAULT_MONEY_FORMAT,
  type MoneyFormat,
} from "../util/money_format.ts";

const currencySchema = z.string().superRefine((code, ctx) => {
  const problem = currencyProblem(code);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const decimalsSchema = z.number().superRefine((decimals, ctx) => {
  const problem = decimalsProblem(decimals);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** PATCH /admin/settings/money: either field or both; what is left out stays. */
export const moneyFormatPatchSchema = z.strictObject({
  currency: currencySchema.optional(),
  decimals: decimalsSchema.optional(),
});

export type MoneyFormatPatch = z.infer<typeof moneyFormatPatchSchema>;

/** The setting as the admin API shows it. */
export interface MoneyFormatView extends MoneyFormat {
  /** `setting`: stored by an operator; `default`: the process's defaults (nothing stored yet). */
  source: "setting" | "default";
  updated_at: string | null;
}

interface StoredMoneyFormat extends MoneyFormat {
  updated_at: string;
}

export class MoneyFormatStore {
  readonly #kv: KvBackend;
  readonly #defaults: MoneyFormat;

  constructor(kv: KvBackend, defaults: MoneyFormat = DEFAULT_MONEY_FORMAT) {
    this.#kv = kv;
    this.#defaults = defaults;
  }

  /** The setting in force: the stored one, else the defaults. */
  async get(): Promise<MoneyFormatView> {
    const stored = (await withKvRetry(() => this.#kv.get<StoredMoneyFormat>(kvKeys.moneyFormat())))
      .value;
    return stored
      ? {
        currency: stored.currency,
        decimals: stored.decimals,
        source: "setting",
        updated_at: stored.updated_at,
      }
      : { ...this.#defaults, source: "default", updated_at: null };
  }

  /** Changes the fields `patch` gives (checked by moneyFormatPatchSchema); returns the result. */
  async patch(patch: MoneyFormatPatch): Promise<MoneyFormatView> {
    const key = kvKeys.moneyFormat();
    // kv-locked: withKvRetry retries a locked commit; a failed check reads the setting again.
    for (let attempt = 0; attempt < 20; attempt++) {
      const current = await withKvRetry(() => this.#kv.get<StoredMoneyFormat>(key));
      const base = current.value ?? this.#defaults;
      const next: StoredMoneyFormat = {
        currency: patch.currency ?? base.currency,
        decimals: patch.decimals ?? base.decimals,
        updated_at: new Date().toISOString(),
      };
      const committed = await withKvRetry(() =>
        this.#kv.atomic().check(current).set(key, next).commit()
      );
      if (committed.ok) return { ...next, source: "setting" } as MoneyFormatView;
    }
    throw new GatewayError("conflict", 409, "The money setting changed meanwhile; retry");
  }
}
