/**
 * A moderation request in OpenAI's shape: `input` as a string, an array of strings, or an array
 * of multimodal parts (`{type: "text", text}`, `{type: "image_url", image_url: {url}}`), and
 * `model` (OpenAI's default, `omni-moderation-latest`, when absent). Other fields are ignored and
 * named in `x-gateway-ignored-fields`; they are not sent upstream.
 */

import { z } from "zod";

export const DEFAULT_MODERATION_MODEL = "omni-moderation-latest";

/** The most inputs one request may carry. */
export const MAX_MODERATION_INPUTS = 2048;

const textPart = z.strictObject({
  type: z.literal("text"),
  text: z.string().min(1, "a text part's text must not be empty"),
});

const imagePart = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({ url: z.string().min(1, "an image_url's url must not be empty") }),
});

const part = z.discriminatedUnion("type", [textPart, imagePart], {
  error: "each input part must be {type: 'text', text} or {type: 'image_url', image_url: {url}}",
});

/** A part's JSON Schema for the OpenAPI document (without its own `$schema`). */
function partJsonSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(part);
  return schema;
}

type Input = string | string[] | z.infer<typeof part>[];

/** `input` read by its shape, so that a problem is named where it is (`input.2.text`). */
const input = z.unknown().transform((value, ctx): Input => {
  const fail = (message: string, path: PropertyKey[] = []) => {
    ctx.addIssue({ code: "custom", message, path });
    return z.NEVER;
  };
  if (value === undefined) return fail("input is required");
  if (typeof value === "string") return value === "" ? fail("input must not be empty") : value;
  if (!Array.isArray(value)) {
    return fail(
      "input must be a string, an array of strings, or an array of text and image_url parts",
    );
  }
  if (value.length === 0) return fail("input must not be empty");
  if (value.length > MAX_MODERATION_INPUTS) {
    return fail(`input may hold at most ${MAX_MODERATION_INPUTS} entries`);
  }
  if (value.every((entry) => typeof entry === "string")) {
    const empty = value.findIndex((entry) => entry === "");
    return empty === -1 ? value : fail("an input string must not be empty", [empty]);
  }
  const parts: z.infer<typeof part>[] = [];
  for (const [index, entry] of value.entries()) {
    const read = part.safeParse(entry);
    if (!read.success) {
      const issue = read.error.issues[0];
      return fail(issue.message, [index, ...issue.path]);
    }
    parts.push(read.data);
  }
  return parts;
}).meta({
  description: "a string, an array of strings, or an array of text and image_url parts",
  anyOf: [
    { type: "string", minLength: 1 },
    { type: "array", minItems: 1, maxItems: MAX_MODERATION_INPUTS, items: { type: "string" } },
    {
      type: "array",
      minItems: 1,
      maxItems: MAX_MODERATION_INPUTS,
      items: partJsonSchema(),
    },
  ],
});

export const moderationRequestSchema = z.object({
  input,
  model: z.string().min(1, "model must not be empty").default(DEFAULT_MODERATION_MODEL),
});

export type ModerationRequest = z.infer<typeof moderationRequestSchema>;

export const KNOWN_MODERATION_FIELDS = new Set(Object.keys(moderationRequestSchema.shape));

/** How many inputs a request carries (a string is one). */
export function moderationInputs(request: ModerationRequest): number {
  return typeof request.input === "string" ? 1 : request.input.length;
}
