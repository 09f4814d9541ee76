/** Group records: a group's description and price multiplier (its price tier). */

import { z } from "zod";
import { BASE_MULTIPLIER, multiplierFromNumber } from "../billing/price_tier.ts";

/** A group name as keys, models and channels spell it (a path segment: no spaces or slashes). */
export const GROUP_NAME = /^[^\s/\\?#%]{1,100}$/;

export const groupInputSchema = z.strictObject({
  description: z.string().max(1000).default(""),
  /** Prices of the group's requests are the catalog's × this: > 0, ≤ 10, 4 decimals at most. */
  price_multiplier: z.number().default(1).superRefine((value, ctx) => {
    const parsed = multiplierFromNumber(value);
    if (typeof parsed !== "number") ctx.addIssue({ code: "custom", message: parsed.problem });
  }),
});

export type GroupInput = z.infer<typeof groupInputSchema>;

export interface GroupRecord {
  name: string;
  description: string;
  price_multiplier: number;
  created_at: string;
  updated_at: string;
}

/** A record's multiplier in ten-thousandths (validated when written). */
export function multiplierOf(record: Pick<GroupRecord, "price_multiplier">): number {
  const parsed = multiplierFromNumber(record.price_multiplier);
  return typeof parsed === "number" ? parsed : BASE_MULTIPLIER;
}
