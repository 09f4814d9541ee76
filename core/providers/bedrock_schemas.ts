/** Bedrock's answers the provider reads (errors, stream chunks), as lenient schemas. */

import { z } from "zod";
import { optionalString, unknownField } from "../util/lenient_schema.ts";

/** AWS's JSON error body: `{"message": …}` (or `Message`). */
export const awsErrorSchema = z.looseObject({ message: optionalString, Message: optionalString });

/** An InvokeModelWithResponseStream `chunk` event's payload: one model event, base64. */
export const bedrockChunkSchema = z.looseObject({ bytes: optionalString });

/** A CountTokens answer: `{"inputTokens": N}`. */
export const bedrockTokenCountSchema = z.looseObject({ inputTokens: unknownField });
