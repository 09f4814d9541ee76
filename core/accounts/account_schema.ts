/** What an account is: a customer with one wallet, a group, its keys and its members. */

import { z } from "zod";
import { unitsSchema } from "../billing/price_schema.ts";
import { patchShape } from "../util/patch_schema.ts";

const accountFields = {
  name: z.string().trim().min(1).max(200),
  /** Which models the account's keys may use, and its price tier. */
  group: z.string().min(1).max(100).default("default"),
  /** How far below zero the wallet may go, in units. */
  credit_limit: unitsSchema.default(0),
  unlimited: z.boolean().default(false),
  /** A suspended account's keys are all refused (403 `account_disabled`). */
  enabled: z.boolean().default(true),
};

export const accountInputSchema = z.strictObject({
  ...accountFields,
  /** Opening balance in units, written as a `credit` ledger entry. */
  balance: unitsSchema.default(0),
});

export const accountPatchSchema = z.strictObject(patchShape(accountFields));

export type AccountInput = z.infer<typeof accountInputSchema>;
export type AccountPatch = z.infer<typeof accountPatchSchema>;

/** An account as stored. */
export interface AccountRecord {
  id: string;
  name: string;
  group: string;
  credit_limit: number;
  unlimited: boolean;
  enabled: boolean;
  /**
   * The ledger its wallet is: the account's own id, or, for an account the upgrade made of a
   * key stored before accounts, that key's id (whose balance and ledger it took over).
   */
  wallet_id: string;
  created_at: string;
  updated_at: string;
}

/** What an account's keys spent in the current UTC windows, and when one was last used. */
export interface AccountUsage {
  keys: number;
  spend_today: number;
  spend_month: number;
  last_used_at: string | null;
}

/** The admin view of an account. */
export function publicAccount(record: AccountRecord, balance: number, usage?: AccountUsage) {
  return {
    ...record,
    balance,
    keys: usage?.keys ?? 0,
    spend_today: usage?.spend_today ?? 0,
    spend_month: usage?.spend_month ?? 0,
    last_used_at: usage?.last_used_at ?? null,
  };
}

export type PublicAccount = ReturnType<typeof publicAccount>;
