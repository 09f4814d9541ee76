/**
 * Sample values generated from the zod schemas of admin records, so tests cover every field of a
 * schema, including fields added later. A field no sample can be generated for fails loudly.
 */

import { isDeepStrictEqual } from "node:util";
import { z } from "zod";

/** The part of JSON Schema that `z.toJSONSchema` writes for the admin schemas. */
interface JsonSchema {
  type?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  default?: unknown;
}

/** Values given instead of generated ones, where a generic value is not valid. */
export interface SampleOverride {
  /** The value a new record gets. */
  create: unknown;
  /** The value a PATCH sets. */
  patch: unknown;
  /** Other fields a PATCH of this field must also send to be valid (a price of a new kind). */
  alsoPatch?: Record<string, unknown>;
}

/** Samples of one field; `create` and `patch` are what the schema makes of the sent values. */
export interface FieldSamples {
  /** Sent on create: never the field's default. */
  create: unknown;
  /** Sent in the PATCH: differs from `create` and, unless boolean, from the default too. */
  patch: unknown;
  alsoPatch: Record<string, unknown>;
  /** The create value as the schema outputs it (e.g. a base_url without a trailing slash). */
  createParsed: unknown;
  patchParsed: unknown;
  alsoPatchParsed: Record<string, unknown>;
  /** The create schema's default, or undefined. */
  default: unknown;
}

type ObjectSchema = z.ZodObject<Record<string, z.ZodType>>;

function propertiesOf(schema: z.ZodType): Record<string, JsonSchema> {
  const json = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  return json.properties ?? {};
}

function noSample(path: string, schema: JsonSchema, why: string): Error {
  return new Error(
    `No sample value for field '${path}' (${why}): ${JSON.stringify(schema)}. ` +
      `Teach tests/helpers/schema_samples.ts this type, or add an override for the field.`,
  );
}

function slug(path: string): string {
  return path.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

function sampleString(schema: JsonSchema, path: string, variant: number): string {
  if (schema.format === "date-time") {
    return `20${31 + variant}-0${2 + variant}-0${3 + variant}T04:05:06.000Z`;
  }
  if (schema.format === "uri") return `https://${slug(path)}-${variant}.example/api`;
  if (schema.format !== undefined || schema.pattern !== undefined) {
    throw noSample(path, schema, "a string format the generator does not know");
  }
  let text = `${slug(path)}-${variant}`;
  if (schema.maxLength !== undefined && text.length > schema.maxLength) {
    text = text.slice(text.length - schema.maxLength);
  }
  return text.padEnd(schema.minLength ?? 0, "x");
}

function sampleNumber(schema: JsonSchema, path: string, variant: number, fallback: unknown) {
  const low = schema.minimum ??
    (schema.exclusiveMinimum === undefined ? undefined : schema.exclusiveMinimum + 1);
  const candidates = [];
  for (let value = Math.max(low ?? 3, 3); candidates.length <= variant; value++) {
    if (value !== fallback) candidates.push(value);
  }
  const value = candidates[variant];
  if (schema.maximum !== undefined && value > schema.maximum) {
    throw noSample(path, schema, "a number range too small for two non-default values");
  }
  return value;
}

/** A value of `schema`: variant 0 for a create, variant 1 for a PATCH; never `fallback`. */
function sample(schema: JsonSchema, path: string, variant: number, fallback?: unknown): unknown {
  if (schema.anyOf) {
    const branches = schema.anyOf.filter((branch) => branch.type !== "null");
    if (branches.length !== 1) throw noSample(path, schema, "a union of several types");
    return sample(branches[0], path, variant, fallback);
  }
  if (schema.enum) {
    const values = schema.enum.filter((value) => !isDeepStrictEqual(value, fallback));
    if (values.length < 2) throw noSample(path, schema, "an enum of fewer than two non-defaults");
    return values[variant];
  }
  switch (schema.type) {
    case "boolean": {
      // Two values only: created as the non-default, patched back to the default.
      const byDefault = fallback ?? false;
      return variant === 0 ? !byDefault : byDefault;
    }
    case "string":
      return sampleString(schema, path, variant);
    case "integer":
    case "number":
      return sampleNumber(schema, path, variant, fallback);
    case "array": {
      if (!schema.items) throw noSample(path, schema, "an array without items");
      // Lengths differ between the variants, so a count (e.g. key_count) changes too.
      const length = Math.max(schema.minItems ?? 0, variant + 1);
      if (schema.maxItems !== undefined && length > schema.maxItems) {
        throw noSample(path, schema, "an array too short for two samples");
      }
      return Array.from(
        { length },
        (_, index) => sample(schema.items!, `${path}-${index}`, variant),
      );
    }
    case "object": {
      if (schema.properties) {
        return Object.fromEntries(
          Object.entries(schema.properties).map((
            [name, property],
          ) => [name, sample(property, `${path}.${name}`, variant)]),
        );
      }
      if (typeof schema.additionalProperties === "object") {
        return {
          [`${slug(path)}-key-${variant}`]: sample(
            schema.additionalProperties,
            `${path}.value`,
            variant,
          ),
        };
      }
      throw noSample(path, schema, "an object without properties");
    }
  }
  throw noSample(path, schema, "an unknown type");
}

function parseField(schema: ObjectSchema, field: string, value: unknown, which: string) {
  const fieldSchema = schema.shape[field];
  if (!fieldSchema) throw new Error(`The PATCH schema has no field '${field}'`);
  const parsed = fieldSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error(
      `The ${which} sample of '${field}', ${JSON.stringify(value)}, is not valid: ` +
        parsed.error.issues.map((issue) => issue.message).join("; "),
    );
  }
  return parsed.data;
}

/**
 * Two samples of every field of `patchSchema`: one to create a record with, another to PATCH it
 * to. Defaults come from `createSchema`. Every sample is checked against the PATCH schema, and
 * against the default, so a field added to the schema is either covered or fails here.
 */
export function fieldSamples(
  patchSchema: ObjectSchema,
  createSchema: z.ZodType,
  overrides: Record<string, SampleOverride> = {},
): Record<string, FieldSamples> {
  const patchJson = propertiesOf(patchSchema);
  const createJson = propertiesOf(createSchema);
  for (const field of Object.keys(overrides)) {
    if (!(field in patchSchema.shape)) throw new Error(`Override of unknown field '${field}'`);
  }
  const samples: Record<string, FieldSamples> = {};
  for (const field of Object.keys(patchSchema.shape)) {
    const json = patchJson[field];
    if (!json) throw new Error(`No JSON Schema for field '${field}'`);
    const fallback = createJson[field]?.default;
    const override = overrides[field];
    const create = override ? override.create : sample(json, field, 0, fallback);
    const patch = override ? override.patch : sample(json, field, 1, fallback);
    const alsoPatch = override?.alsoPatch ?? {};
    if (create === undefined || create === null || isDeepStrictEqual(create, fallback)) {
      throw new Error(`The create sample of '${field}' is its default ${JSON.stringify(create)}`);
    }
    if (isDeepStrictEqual(create, patch)) {
      throw new Error(`The samples of '${field}' are the same: ${JSON.stringify(create)}`);
    }
    if (json.type !== "boolean" && isDeepStrictEqual(patch, fallback)) {
      throw new Error(`The PATCH sample of '${field}' is its default ${JSON.stringify(patch)}`);
    }
    samples[field] = {
      create,
      patch,
      alsoPatch,
      createParsed: parseField(patchSchema, field, create, "create"),
      patchParsed: parseField(patchSchema, field, patch, "PATCH"),
      alsoPatchParsed: Object.fromEntries(
        Object.entries(alsoPatch).map((
          [name, value],
        ) => [name, parseField(patchSchema, name, value, `PATCH (with '${field}')`)]),
      ),
      default: fallback,
    };
  }
  return samples;
}

/** The fields of `schema` that accept `null`. */
export function nullableFields(schema: ObjectSchema): string[] {
  return Object.keys(schema.shape).filter((field) => schema.shape[field].safeParse(null).success);
}
