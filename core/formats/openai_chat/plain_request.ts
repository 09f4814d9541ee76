/**
 * A quick check that a parsed chat-completions body passes `chatRequestSchema`, without zod: the
 * fast path runs it on every request and asks zod only when it says no (zod then names the field
 * in its 400). It may say no to a body zod takes, never yes to one zod refuses
 * (tests/core/formats/openai_chat/plain_request_test.ts checks it against the schema).
 */

import type { ChatRequest } from "./request_schema.ts";

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNullish(value: unknown): boolean {
  return value === undefined || value === null;
}

function isNullishBoolean(value: unknown): boolean {
  return isNullish(value) || typeof value === "boolean";
}

function isNullishIntIn(value: unknown, min: number, max: number): boolean {
  return isNullish(value) ||
    (Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max);
}

function isTypedObjectList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) {
    if (!isObject(item) || typeof item.type !== "string") return false;
  }
  return true;
}

function isMessage(value: unknown): boolean {
  if (!isObject(value) || typeof value.role !== "string" || !ROLES.has(value.role)) return false;
  const content = value.content;
  return isNullish(content) || typeof content === "string" || isTypedObjectList(content);
}

/** Whether `body` surely passes `chatRequestSchema` (false: let the schema decide). */
export function isPlainChatRequest(body: Record<string, unknown>): body is ChatRequest {
  const { model, messages, stream_options: streamOptions, tools } = body;
  if (typeof model !== "string" || model === "") return false;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (const message of messages) if (!isMessage(message)) return false;
  return isNullishBoolean(body.stream) &&
    (isNullish(streamOptions) ||
      (isObject(streamOptions) && isNullishBoolean(streamOptions.include_usage))) &&
    isNullishIntIn(body.max_tokens, 1, Number.MAX_SAFE_INTEGER) &&
    isNullishIntIn(body.max_completion_tokens, 1, Number.MAX_SAFE_INTEGER) &&
    isNullishIntIn(body.n, 1, 128) &&
    (isNullish(tools) || isTypedObjectList(tools));
}
