/** Google's answers the provider reads (errors, token counts), as lenient schemas. */

import { z } from "zod";
import {
  optionalListOf,
  optionalObject,
  optionalString,
  unknownField,
} from "../util/lenient_schema.ts";

/** `{error:{code, message, status}}`. */
export const geminiErrorAnswerSchema = z.looseObject({
  error: optionalObject({ message: optionalString, status: optionalString }),
});

/** A CountTokensResponse; the counts are judged by the reader. */
export const geminiTokenCountSchema = z.looseObject({
  totalTokens: unknownField,
  cachedContentTokenCount: unknownField,
  /** Per modality; entries without a modality are left out. */
  promptTokensDetails: optionalListOf(
    z.looseObject({ modality: z.string(), tokenCount: unknownField }),
  ),
});
