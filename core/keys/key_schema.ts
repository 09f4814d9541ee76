/** What a client API key is, as the admin API accepts and shows it. */

import { z } from "zod";
import { unitsSchema } from "../billing/price_schema.ts";
import { SPEND_PERIODS, type SpendLimits, type SpendPeriod } from "../billing/spend_windows.ts";
import { patchShape } from "../util/patch_schema.ts";
import { ipAllowlistSchema } from "./ip_allowlist.ts";

/** The form of the owner a key without one has; no chosen owner may take it. */
const KEY_OWNER = /^key:/i;

const keyFields = {
  name: z.string().min(1).max(200),
  group: z.string().min(1).max(100).default("default"),
  /** Model allowlist; null allows every model of the key's group. */
  models: z.array(z.string().min(1)).nullable().default(null),
  /** How far below zero the balance may go, in units. */
  credit_limit: unitsSchema.default(0),
  unlimited: z.boolean().default(false),
  expires_at: z.iso.datetime({ offset: true }).nullable().default(null),
  rpm: z.int().positive().nullable().default(null),
  /** Tokens per minute (input and output, UTC minutes); null: no limit. */
  tpm: z.int().positive().nullable().default(null),
  /**
   * Caps on the units spent per UTC day (from 00:00), week (from Monday) and month (from the
   * 1st), beside the balance; an absent period is not capped. Null: no caps.
   */
  spend_limits: z.strictObject({
    day: unitsSchema.optional(),
    week: unitsSchema.optional(),
    month: unitsSchema.optional(),
  }).nullable().default(null),
  enabled: z.boolean().default(true),
  /**
   * Who the key belongs to: keys with the same owner see each other's tasks. Null means the
   * key is its own owner (`key:<id>`, a form an admin cannot choose: see `ownerOf`).
   */
  owner: z.string().min(1).max(200).refine(
    (owner) => !KEY_OWNER.test(owner),
    "owner must not start with 'key:': that form is the owner of a key without one, and naming it would show that key's tasks; choose another name",
  ).nullable().default(null),
  /** Refuse (400) what a converting channel would drop, instead of naming it in a header. */
  strict_fields: z.boolean().default(false),
  /** Addresses and CIDR ranges the key may be used from; null: any address. */
  ip_allowlist: ipAllowlistSchema.default(null),
};

export const keyInputSchema = z.strictObject({
  ...keyFields,
  /**
   * The account the key belongs to, whose wallet it pays from; absent: an account of its own,
   * made with the key's name, group, credit limit and opening balance.
   */
  account_id: z.string().min(1).max(100).optional(),
  /** Opening balance in units, written as a `credit` ledger entry. */
  balance: unitsSchema.default(0),
});

/** A PATCH changes exactly the fields it names; `null` clears a nullable one. */
export const keyPatchSchema = z.strictObject(patchShape(keyFields));

export const creditInputSchema = z.strictObject({
  amount: z.int().refine((amount) => amount !== 0, "amount must not be zero"),
  note: z.string().max(500).optional(),
  /** Idempotency reference: a second credit with the same ref is refused. */
  ref: z.string().min(1).max(200).optional(),
});

export type KeyInput = z.infer<typeof keyInputSchema>;

export const rotateInputSchema = z.strictObject({
  /** How long the old secret keeps working, in seconds; 0 ends it at once. Default 24 h. */
  grace_seconds: z.int().nonnegative().max(30 * 86_400).default(86_400),
});

/** The secret a rotation replaced, working until `expires_at`. */
export interface PreviousSecret {
  prefix: string;
  hash: string;
  expires_at: string;
}

/** A key as stored. The secret itself is never stored, only its SHA-256. */
export interface KeyRecord {
  id: string;
  /** The account it belongs to; absent on a key stored before accounts, until the upgrade. */
  account_id?: string;
  /** The wallet it pays from: its account's (absent: its own id, as before accounts). */
  wallet_id?: string;
  /** The member who made it in the token management area; null or absent: the operator. */
  created_by?: string | null;
  name: string;
  group: string;
  models: string[] | null;
  credit_limit: number;
  unlimited: boolean;
  expires_at: string | null;
  rpm: number | null;
  /** Absent on keys created before these limits existed. */
  tpm?: number | null;
  spend_limits?: SpendLimits | null;
  enabled: boolean;
  /** Absent on keys created before owners existed; read it through `ownerOf`. */
  owner?: string | null;
  /** Absent on keys created before it existed (false). */
  strict_fields?: boolean;
  /** Absent on keys created before it existed (any address). */
  ip_allowlist?: string[] | null;
  /** The first characters of the secret, to recognise it in lists. */
  prefix: string;
  hash: string;
  /** The secret the last rotation replaced, while (and after) its grace runs. */
  previous_secret?: PreviousSecret | null;
  rotated_at?: string;
  created_at: string;
  updated_at: string;
}

/**
 * The owner of `key`'s tasks and media: its `owner`, else the key itself. An owner of the
 * reserved `key:` form (stored before the schema refused it) counts as none, so it can never
 * name another key's tasks.
 */
export function ownerOf(key: Pick<KeyRecord, "id" | "owner">): string {
  return key.owner && !KEY_OWNER.test(key.owner) ? key.owner : `key:${key.id}`;
}

/** What a key spent (or holds) in the current UTC windows, and when it was last used. */
export interface KeyUsage {
  spend: Record<SpendPeriod, number>;
  last_used_at: string | null;
  /** Units of its costs the key's credit floor left uncollected, over its life. */
  shortfall: number;
}

/**
 * The admin view of a key: no hashes; `spend_today`, the spend of the current day, week and
 * month (what the caps count), when it was last used (to within a minute), and
 * `shortfall_total`, the units of its costs its credit floor left uncollected.
 */
export function publicKey(record: KeyRecord, balance: number, usage?: KeyUsage) {
  const { hash: _hash, previous_secret, ...rest } = record;
  return {
    ...rest,
    tpm: record.tpm ?? null,
    spend_limits: record.spend_limits ?? null,
    ip_allowlist: record.ip_allowlist ?? null,
    previous_secret: previous_secret
      ? { prefix: previous_secret.prefix, expires_at: previous_secret.expires_at }
      : null,
    balance,
    spend_today: usage?.spend.day ?? 0,
    // Every period, capped or not, so a view keeps its shape when caps change.
    period_spend: Object.fromEntries(
      SPEND_PERIODS.map((period) => [period, usage?.spend[period] ?? 0]),
    ) as Record<SpendPeriod, number>,
    last_used_at: usage?.last_used_at ?? null,
    shortfall_total: usage?.shortfall ?? 0,
  };
}
