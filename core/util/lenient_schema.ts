/**
 * Lenient zod schemas for upstream answers (vercel/ai's pattern): unknown fields are kept and
 * ignored, and a field left out, null, or of another type reads as undefined, so a provider that
 * adds or changes a field never fails a request, and what the gateway reads is typed. Token
 * counts stay `unknown`: billing's `reportedCount` judges them (a wrong count must be refused,
 * never read as 0).
 */

import { z } from "zod";

/**
 * `schema`, or undefined when the field is missing, null or of another type. Null is let through
 * and then mapped (vendors send it for "none" all the time, and zod's error path, which `catch`
 * takes, costs several times a plain read).
 */
export function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined).catch(undefined);
}

/** A field read as it came, whatever it is (a token count, a tool's input), or missing. */
export const unknownField = z.unknown().optional();

/** A string field that may be missing. */
export const optionalString = optional(z.string());

/** A number field that may be missing. */
export const optionalNumber = optional(z.number());

/** A boolean field that may be missing. */
export const optionalBoolean = optional(z.boolean());

/** An object of `shape` (other fields kept), or undefined when it is not an object. */
export function optionalObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return optional(z.looseObject(shape));
}

/** The entries of a list that fit `item` (the others dropped); empty when there is no list. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.array(item).nullish().catch((context) => entriesThatFit(item, context.value))
    .transform((entries): z.output<T>[] => entries ?? []);
}

/** The entries of `value` that fit `item`, when it is a list (the slow path of a list). */
function entriesThatFit<T extends z.ZodType>(item: T, value: unknown): z.output<T>[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const kept: z.output<T>[] = [];
  for (const entry of value) {
    const read = item.safeParse(entry);
    if (read.success) kept.push(read.data);
  }
  return kept;
}

/** The entries of a list that fit `item` (the others dropped); undefined when there is no list. */
export function optionalListOf<T extends z.ZodType>(item: T) {
  // A list whose entries all fit (the common case) is read in one pass; only a list with an entry
  // that does not fit, or a value that is no list, takes the slow path.
  return z.array(item).nullish().catch((context) => entriesThatFit(item, context.value))
    .transform((entries): z.output<T>[] | undefined => entries ?? undefined);
}

/** `value` read by a loose object schema; a value that is not an object reads as `{}`. */
export function readLenient<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const read = schema.safeParse(value);
  return read.success ? read.data : schema.parse({});
}

/** An answer's text read by a loose object schema; text that is not JSON reads as `{}`. */
export function readLenientJson<T extends z.ZodType>(schema: T, text: string): z.output<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = {};
  }
  return readLenient(schema, value);
}

/** `answer[name]` when `answer` is an object, else undefined (an upstream answer not yet read). */
export function fieldOf(answer: unknown, name: string): unknown {
  return answer !== null && typeof answer === "object"
    ? (answer as Record<string, unknown>)[name]
    : undefined;
}

/** Sets `answer[name]` when `answer` is an object (a pass-through renaming its model). */
export function setField(answer: unknown, name: string, value: unknown): void {
  if (answer !== null && typeof answer === "object") {
    (answer as Record<string, unknown>)[name] = value;
  }
}
