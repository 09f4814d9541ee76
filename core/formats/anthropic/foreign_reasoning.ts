/**
 * Anthropic's reasoning-history rules for a same-format body: thinking blocks another provider
 * signed are dropped and named, as is thinking with no signature at all (which Anthropic never
 * accepts); the gateway's own label is taken off Anthropic's. Pure.
 */

import { REASONING_HISTORY_FIELD, replayVerdict } from "../signature.ts";
import { thinkingFits } from "./encode_request.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export function anthropicWithoutForeignReasoning(body: Json): { body: Json; dropped: string[] } {
  if (!Array.isArray(body?.messages)) return { body, dropped: [] };
  let changed = false;
  const messages = body.messages.map((message: Json) => {
    if (message?.role !== "assistant" || !Array.isArray(message.content)) return message;
    const content: Json[] = [];
    let touched = false;
    for (const block of message.content) {
      const field = block?.type === "thinking"
        ? "signature"
        : block?.type === "redacted_thinking"
        ? "data"
        : undefined;
      // A thinking block without a signature (another provider's, unsigned) is never accepted.
      const unsigned = field !== undefined && !block[field];
      const decided = unsigned ? "drop" : field ? replayVerdict(block[field], "anthropic") : "keep";
      if (decided === "keep") content.push(block);
      else if (decided !== "drop") content.push({ ...block, [field!]: decided });
      touched ||= decided !== "keep";
    }
    changed ||= touched;
    return touched ? { ...message, content } : message;
  });
  if (!changed) return { body, dropped: [] };
  const out = { ...body, messages: messages.filter((message: Json) => message.content?.length) };
  const dropped = [REASONING_HISTORY_FIELD.anthropic];
  // With its thinking gone, the last tool turn cannot be continued with thinking on.
  if (out.thinking && out.thinking.type !== "disabled" && !thinkingFits(out.messages)) {
    delete out.thinking;
    dropped.push("thinking");
  }
  return { body: out, dropped };
}
