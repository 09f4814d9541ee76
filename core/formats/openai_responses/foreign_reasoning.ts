/**
 * The Responses API's reasoning-history rules for a same-format body: reasoning items whose
 * encrypted content another provider signed are dropped and named. Pure.
 */

import { REASONING_HISTORY_FIELD, replayVerdict } from "../signature.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export function responsesWithoutForeignReasoning(body: Json): { body: Json; dropped: string[] } {
  if (!Array.isArray(body?.input)) return { body, dropped: [] };
  let changed = false;
  const input: Json[] = [];
  for (const item of body.input) {
    const decided = item?.type === "reasoning"
      ? replayVerdict(item.encrypted_content, "openai-responses")
      : "keep";
    if (decided === "keep") input.push(item);
    else if (decided !== "drop") input.push({ ...item, encrypted_content: decided });
    changed ||= decided !== "keep";
  }
  return changed
    ? { body: { ...body, input }, dropped: [REASONING_HISTORY_FIELD["openai-responses"]] }
    : { body, dropped: [] };
}
