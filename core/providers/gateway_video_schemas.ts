/** Another gateway's answers, as lenient schemas (only what the provider reads). */

import { z } from "zod";
import { optionalObject, optionalString } from "../util/lenient_schema.ts";

/** `GET /models/{model}`'s answer. */
export const gatewayModelSchema = z.looseObject({ id: optionalString });

/** A task answer: `{data: {status, progress, fail_reason, result_url, data: {video_url}}}`. */
export const gatewayVideoTaskSchema = z.looseObject({
  data: optionalObject({
    status: optionalString,
    progress: optionalString,
    fail_reason: optionalString,
    result_url: optionalString,
    data: optionalObject({ video_url: optionalString }),
  }),
});
