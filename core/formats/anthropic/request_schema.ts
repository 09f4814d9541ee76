/** The messages request as the gateway checks it (the API's own rules, each its own 400). */

import { z } from "zod";

const block = z.looseObject({ type: z.string() });

export const messagesRequestSchema = z.looseObject({
  model: z.string({ error: "model is required" }).min(1, "model is required"),
  max_tokens: z.int({ error: "max_tokens is required: an integer" }).positive(
    "max_tokens must be at least 1",
  ),
  messages: z.array(z.looseObject({
    role: z.enum(["user", "assistant"], {
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
