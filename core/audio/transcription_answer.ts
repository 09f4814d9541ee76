/**
 * Reading a transcription answer (OpenAI's shapes): a whole JSON answer's text and usage, and
 * the usage of a stream's `transcript.text.done` event. Lenient: a field the gateway does not
 * need is passed on untouched, a usage it cannot believe is no usage (the bill is estimated).
 */

import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { readLenient } from "../util/lenient_schema.ts";
import {
  transcriptAnswerSchema,
  transcriptEventSchema,
} from "../providers/openai_audio_schemas.ts";

export interface ReportedUsage {
  input_tokens: number;
  output_tokens: number;
}

function countOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Token usage as reported, when both counts are whole non-negative numbers. */
export function reportedUsage(usage: unknown): ReportedUsage | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  const { input_tokens, output_tokens } = usage as Record<string, unknown>;
  const input = countOf(input_tokens);
  const output = countOf(output_tokens);
  return input === undefined || output === undefined
    ? undefined
    : { input_tokens: input, output_tokens: output };
}

/** A JSON answer's transcript and usage; a body that is not a JSON object fails the attempt. */
export function readJsonTranscript(text: string): { text: string; usage?: ReportedUsage } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpstreamAttemptError("The upstream answered with invalid JSON", { retryable: true });
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    throw new UpstreamAttemptError("The upstream's answer is not a JSON object", {
      retryable: true,
    });
  }
  const answer = readLenient(transcriptAnswerSchema, json);
  return { text: answer.text ?? "", usage: reportedUsage(answer.usage) };
}

/** One stream event: its delta text, or, for `transcript.text.done`, the text and usage. */
export function readStreamEvent(
  data: string,
): { delta?: string; done?: { text: string; usage?: ReportedUsage } } {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return {};
  }
  const event = readLenient(transcriptEventSchema, json);
  if (event.type === "transcript.text.delta") return { delta: event.delta ?? "" };
  if (event.type === "transcript.text.done") {
    return { done: { text: event.text ?? "", usage: reportedUsage(event.usage) } };
  }
  return {};
}
