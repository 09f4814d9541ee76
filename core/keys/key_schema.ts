/** What a client API key is, as the admin API accepts and shows it. */

import { z } from "zod";
import { unitsSchema } from "../billing/price_schema.ts";
import { patchShape } from "../util/patch_schema.ts";

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
  enabled: z.boolean().default(true),
  /**
   * Who the key belongs to: keys with the same owner see each other's tasks. Null means the
   * key is its own owner.
   */
  owner: z.string().min(1).max(200).nullable().default(null),
  /** Refuse (400) what a converting channel would drop, instead of naming it in a header. */
  strict_fields: z.boolean().default(false),
};

export const keyInputSchema = z.strictObject({
  ...keyFields,
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

/** A key as stored. The secret itself is never stored, only its SHA-256. */
export interface KeyRecord {
  id: string;
  name: string;
  group: string;
  models: string[] | null;
  credit_limit: number;
  unlimited: boolean;
  expires_at: string | null;
  rpm: number | null;
  enabled: boolean;
  /** Absent on keys created before owners existed; read it through `ownerOf`. */
  owner?: string | null;
  /** Absent on keys created before it existed (false). */
  strict_fields?: boolean;
  /** The first characters of the secret, to recognise it in lists. */
  prefix: string;
  hash: string;
  created_at: string;
  updated_at: string;
}

/** The owner of `key`'s tasks and media: its `owner`, else the key itself. */
export function ownerOf(key: Pick<KeyRecord, "id" | "owner">): string {
  return key.owner ?? `key:${key.id}`;
}

/** The admin view of a key: no hash. */
export function publicKey(record: KeyRecord, balance: number) {
  const { hash: _hash, ...rest } = record;
  return { ...rest, balance };
}
