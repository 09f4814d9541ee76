/** Anthropic's answers the provider reads (errors, token counts), as lenient schemas. */

import { z } from "zod";
import { optionalObject, optionalString, unknownField } from "../util/lenient_schema.ts";

/** `{type:"error", error:{type, message}}`. */
export const anthropicErrorSchema = z.looseObject({
  error: optionalObject({ type: optionalString, message: optionalString }),
});

/** count_tokens' answer; the count is judged by the reader. */
export const anthropicTokenCountSchema = z.looseObject({ input_tokens: unknownField });
