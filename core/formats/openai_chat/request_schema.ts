/**
 * The chat-completions request as the gateway checks it: the fields it relies on are typed
 * strictly; every other field passes through to the upstream untouched.
 */

import { z } from "zod";

const contentPartSchema = z.looseObject({ type: z.string() });

const messageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
});

export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: z.int().positive().nullish(),
  max_completion_tokens: z.int().positive().nullish(),
  n: z.int().min(1).max(128).nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;
