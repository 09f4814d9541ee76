/** Neutral answers as Converse answers (pure): the shape Bedrock gives, for completeness of the codec. */

import { argumentsObject, type NeutralPart, type NeutralResponse } from "../neutral.ts";
import { signatureFor } from "../signature.ts";
import { CONVERSE_STOP } from "./_stop.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function blockOf(part: NeutralPart): Json | null {
  switch (part.type) {
    case "text":
      return { text: part.text };
    case "tool_call":
      return {
        toolUse: { toolUseId: part.id, name: part.name, input: argumentsObject(part.arguments) },
      };
    case "reasoning": {
      const signed = signatureFor(part.signature, "bedrock-converse");
      return signed?.kind === "redacted"
        ? { reasoningContent: { redactedContent: signed.value } }
        : { reasoningContent: { reasoningText: { text: part.text, signature: signed?.value } } };
    }
    default:
      return null;
  }
}

export function encodeConverseResponse(answer: NeutralResponse): Json {
  const usage = answer.usage;
  return {
    output: {
      message: {
        role: "assistant",
        content: answer.parts.map(blockOf).filter((block) => block !== null),
      },
    },
    stopReason: CONVERSE_STOP[answer.stop],
    usage: usage && {
      inputTokens: usage.input_tokens - usage.cached_input_tokens,
      outputTokens: usage.output_tokens,
      totalTokens: usage.input_tokens + usage.output_tokens,
      cacheReadInputTokens: usage.cached_input_tokens,
      cacheWriteInputTokens: 0,
    },
  };
}
