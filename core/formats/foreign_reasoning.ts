/**
 * A same-format body (a pass-through) without the reasoning another provider signed. A client's
 * history can hold reasoning the gateway labelled with its signer (signature.ts) when an earlier
 * turn went to a channel of another format: a model switched, or a failover. That provider's
 * proof means nothing here and the upstream would refuse the whole request, so it is dropped and
 * named (as is Anthropic thinking with no signature at all, which Anthropic never accepts); the
 * body is otherwise untouched (a copy only when something changes). Pure.
 */

import type { TextFormat } from "./neutral.ts";
import { REASONING_HISTORY_FIELD, signedBy, type Signer } from "./signature.ts";
import { thinkingFits } from "./anthropic/encode_request.ts";
import { SKIP_SIGNATURE } from "./gemini/encode_request.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** What to do with a signature: keep it as it is, send the signer's own value, or drop it. */
function verdict(signature: unknown, own: Signer): "keep" | "drop" | string {
  if (typeof signature !== "string") return "keep";
  const signed = signedBy(signature);
  if (!signed) return "keep";
  return signed.signer === own ? signed.value : "drop";
}

/** `body` for an upstream of `format`, and the fields dropped from it. */
export function withoutForeignReasoning(
  format: TextFormat,
  body: Json,
): { body: Json; dropped: string[] } {
  switch (format) {
    case "anthropic":
      return anthropicBody(body);
    case "openai-responses":
      return responsesBody(body);
    case "gemini":
      return geminiBody(body);
    default:
      return { body, dropped: [] };
  }
}

function anthropicBody(body: Json): { body: Json; dropped: string[] } {
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
      const decided = unsigned ? "drop" : field ? verdict(block[field], "anthropic") : "keep";
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

function responsesBody(body: Json): { body: Json; dropped: string[] } {
  if (!Array.isArray(body?.input)) return { body, dropped: [] };
  let changed = false;
  const input: Json[] = [];
  for (const item of body.input) {
    const decided = item?.type === "reasoning"
      ? verdict(item.encrypted_content, "openai-responses")
      : "keep";
    if (decided === "keep") input.push(item);
    else if (decided !== "drop") input.push({ ...item, encrypted_content: decided });
    changed ||= decided !== "keep";
  }
  return changed
    ? { body: { ...body, input }, dropped: [REASONING_HISTORY_FIELD["openai-responses"]] }
    : { body, dropped: [] };
}

function geminiBody(body: Json): { body: Json; dropped: string[] } {
  if (!Array.isArray(body?.contents)) return { body, dropped: [] };
  let changed = false;
  const contents = body.contents.map((content: Json) => {
    if (!Array.isArray(content?.parts)) return content;
    const parts: Json[] = [];
    for (const part of content.parts) {
      const decided = verdict(part?.thoughtSignature, "gemini");
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
