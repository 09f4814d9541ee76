/** Responses-API response objects in neutral terms (pure). */

import type { NeutralPart, NeutralResponse } from "../neutral.ts";
import { itemParts } from "./_item_parts.ts";
import { responsesStop } from "./_stop.ts";
import { responsesUsage } from "./_usage.ts";
import { responsesResponseSchema } from "./answer_schemas.ts";
import { readLenient } from "../../util/lenient_schema.ts";

/** An upstream response object in neutral terms. */
export function decodeResponsesResponse(json: unknown): NeutralResponse {
  const answer = readLenient(responsesResponseSchema, json);
  const parts = answer.output.flatMap(itemParts);
  const refused = answer.output.some((item) =>
    item.content.some((part) => part.type === "refusal")
  );
  return {
    id: answer.id ?? "",
    model: answer.model ?? "",
    created: answer.created_at ?? Math.floor(Date.now() / 1000),
    parts,
    stop: refused
      ? "content_filter"
      : responsesStop(answer, parts.some((part: NeutralPart) => part.type === "tool_call")),
    usage: responsesUsage(answer.usage),
  };
}
