/** PATCH bodies built from create-schema fields: every field optional and none defaulted. */

import { z } from "zod";

type Undefaulted<T> = T extends z.ZodDefault<infer Inner> ? Inner : T;

/** The shape of a PATCH body for `fields`: each field optional, its create default removed. */
export type PatchShape<T extends Record<string, z.ZodType>> = {
  [K in keyof T]: z.ZodOptional<Undefaulted<T[K]>>;
};

/**
 * Makes every field of `fields` optional without its default. zod 4 fills in the default of
 * `field.default(x).optional()` when the field is absent, so a PATCH built that way would reset
 * every field it was not sent; unwrapping the default first leaves absent fields absent.
 */
export function patchShape<T extends Record<string, z.ZodType>>(fields: T): PatchShape<T> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, schema]) => [
      name,
      (schema instanceof z.ZodDefault ? schema.unwrap() as z.ZodType : schema).optional(),
    ]),
  ) as PatchShape<T>;
}

/** The fields of `patch` that were sent (absent and `undefined` dropped; `null` kept). */
export function sentFields<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(patch).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
