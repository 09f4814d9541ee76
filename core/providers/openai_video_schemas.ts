/** OpenAI's Videos API answers, as lenient schemas (only what the provider reads). */

import { z } from "zod";
import {
  optionalListOf,
  optionalNumber,
  optionalObject,
  optionalString,
} from "../util/lenient_schema.ts";

/** A video object: `{id, object: "video", status, progress, error}`. */
export const openAIVideoSchema = z.looseObject({
  id: optionalString,
  status: optionalString,
  progress: optionalNumber,
  error: optionalObject({ code: optionalString, message: optionalString }),
});

/** A video list: `{object: "list", data: [...]}`. */
export const openAIVideoListSchema = z.looseObject({ data: optionalListOf(z.unknown()) });
