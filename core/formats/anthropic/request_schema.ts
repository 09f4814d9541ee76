/** The messages request as the gateway checks it (the API's own rules, each its own 400). */

import { z } from "zod";

const block = z.looseObject({ type: z.string() });

export const messagesRequestSchema = z.looseObject({
  model: z.string({ error: "model is required" }).min(1, "model is required"),
  max_tokens: z.int({ error: "max_tokens is required: an integer" }).positive(
    "max_tokens must be at least 1",
  ),
  messages: z.array(z.looseObject({
    role: z.enum(["user", "assistant", "system"], {
      error:
        "a message role is 'user' or 'assistant'; system instructions go in the top-level 'system' field",
    }),
    content: z.union([z.string(), z.array(block)], {
      error: "content is a string or an array of content blocks",
    }),
  })).min(1, "messages must not be empty"),
  system: z.union([z.string(), z.array(block)]).optional(),
  stream: z.boolean().optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  tool_choice: z.looseObject({ type: z.enum(["auto", "any", "tool", "none"]) }).optional(),
  thinking: z.looseObject({ type: z.string() }).optional(),
});

export const countTokensSchema = z.looseObject({
  model: z.string({ error: "model is required" }).min(1, "model is required"),
  messages: messagesRequestSchema.shape.messages,
  system: z.union([z.string(), z.array(block)]).optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
});

/** The beta under which the messages API takes `role: "system"` inside `messages`. */
export const MID_CONVERSATION_SYSTEM_BETA = "mid-conversation-system-2026-04-07";

/**
 * The index of a `role: "system"` message sent without its beta, or -1: without it the API
 * takes system instructions only in the top-level `system` field.
 */
export function systemMessageWithoutBeta(
  body: { messages: Array<{ role: string }> },
  betas: string[],
): number {
  if (betas.includes(MID_CONVERSATION_SYSTEM_BETA)) return -1;
  return body.messages.findIndex((message) => message.role === "system");
}
