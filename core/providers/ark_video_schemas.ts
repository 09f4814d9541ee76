/** ModelArk's task answers, as lenient schemas (only what the provider reads). */

import { z } from "zod";
import { optionalListOf, optionalObject, optionalString } from "../util/lenient_schema.ts";

/** A task-list answer: `{items: [...], total}`. */
export const arkTaskListSchema = z.looseObject({ items: optionalListOf(z.unknown()) });

/** A task-query answer. */
export const arkTaskSchema = z.looseObject({
  status: optionalString,
  content: optionalObject({ video_url: optionalString }),
  error: optionalObject({ code: optionalString, message: optionalString }),
});
