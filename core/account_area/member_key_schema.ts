/**
 * The key fields a member sets in the token management area: a subset of the admin's. The
 * account's wallet, group and floor are the operator's; a member's key only narrows them.
 */

import { z } from "zod";
import { keyInputSchema, keyPatchSchema } from "../keys/key_schema.ts";

export const memberKeyInputSchema = keyInputSchema.pick({
  name: true,
  models: true,
  expires_at: true,
  rpm: true,
  tpm: true,
  spend_limits: true,
  enabled: true,
  strict_fields: true,
  ip_allowlist: true,
});

export const memberKeyPatchSchema = keyPatchSchema.pick({
  name: true,
  models: true,
  expires_at: true,
  rpm: true,
  tpm: true,
  spend_limits: true,
  enabled: true,
  strict_fields: true,
  ip_allowlist: true,
});

export type MemberKeyInput = z.infer<typeof memberKeyInputSchema>;
export type MemberKeyPatch = z.infer<typeof memberKeyPatchSchema>;
