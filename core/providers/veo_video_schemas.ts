/** The Gemini API's long-running operation answers for Veo, as lenient schemas. */

import { z } from "zod";
import {
  optionalBoolean,
  optionalListOf,
  optionalNumber,
  optionalObject,
  optionalString,
} from "../util/lenient_schema.ts";

/** An operation: `{name, done?, error?, response?: {generateVideoResponse}}`. */
export const veoOperationSchema = z.looseObject({
  name: optionalString,
  done: optionalBoolean,
  error: optionalObject({ code: optionalNumber, message: optionalString }),
  response: optionalObject({
    generateVideoResponse: optionalObject({
      generatedSamples: optionalListOf(
        z.looseObject({ video: optionalObject({ uri: optionalString }) }),
      ),
      raiMediaFilteredReasons: optionalListOf(z.string()),
    }),
  }),
});

/** A model: `{name: "models/…", …}`. */
export const veoModelSchema = z.looseObject({ name: optionalString });
