/**
 * Gemini's reasoning-history rules for a same-format body: thought signatures another provider
 * signed are dropped and named (a function call keeps Gemini's skip value in their place). Pure.
 */

import { REASONING_HISTORY_FIELD, replayVerdict } from "../signature.ts";
import { SKIP_SIGNATURE } from "./encode_request.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export function geminiWithoutForeignReasoning(body: Json): { body: Json; dropped: string[] } {
  if (!Array.isArray(body?.contents)) return { body, dropped: [] };
  let changed = false;
  const contents = body.contents.map((content: Json) => {
    if (!Array.isArray(content?.parts)) return content;
    const parts: Json[] = [];
    for (const part of content.parts) {
      const decided = replayVerdict(part?.thoughtSignature, "gemini");
      changed ||= decided !== "keep";
      if (decided === "keep") parts.push(part);
      else if (decided !== "drop") parts.push({ ...part, thoughtSignature: decided });
      else if (part.functionCall) parts.push({ ...part, thoughtSignature: SKIP_SIGNATURE });
      else if (!part.thought) {
        const { thoughtSignature: _, ...rest } = part;
        parts.push(rest);
      }
    }
    return { ...content, parts };
  });
  if (!changed) return { body, dropped: [] };
  return {
    body: { ...body, contents: contents.filter((content: Json) => content.parts?.length) },
    dropped: [REASONING_HISTORY_FIELD.gemini],
  };
}
