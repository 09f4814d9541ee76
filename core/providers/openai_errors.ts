/**
 * How OpenAI and OpenAI-compatible upstreams write their errors: `{error:{message, code}}`, or
 * the fields at the top. Read leniently: a code of another type (a number) is left out.
 */

import { z } from "zod";
import { optionalObject, optionalString, readLenient } from "../util/lenient_schema.ts";
import type { ErrorDialect } from "../upstream/error_reader.ts";

const openAIErrorFields = { message: optionalString, code: optionalString };

/** An OpenAI-style error answer. */
export const openAIErrorSchema = z.looseObject({
  ...openAIErrorFields,
  error: optionalObject(openAIErrorFields),
});

export const OPENAI_ERRORS: ErrorDialect = {
  read(body) {
    const answer = readLenient(openAIErrorSchema, body);
    const fields = answer.error ?? answer;
    return { message: fields.message, code: fields.code };
  },
};
