/** An OpenAI Images answer, as a lenient schema (only what the provider reads). */

import { z } from "zod";
import { listOf, optionalString } from "../util/lenient_schema.ts";

/** `{data: [{b64_json | url, revised_prompt}]}`. */
export const openAIImagesAnswerSchema = z.looseObject({
  data: listOf(z.looseObject({
    b64_json: optionalString,
    url: optionalString,
    revised_prompt: optionalString,
  })),
});
