/** The whole (non-stream) answer of a text request, in the inbound format, and its bill. */

import type { Channel } from "../channels/channel_schema.ts";
import { CODECS } from "../formats/codecs.ts";
import { findTextInterface, textInterfaceOf } from "../formats/interfaces.ts";
import type { TextFormat } from "../formats/neutral.ts";
import { restoreDeclaredCall } from "../formats/tool_names.ts";
import { outputCharsOfParts } from "./estimate.ts";
import type { TextInbound } from "./inbound.ts";
import type { TextBill } from "./text_bill.ts";
import type { JsonAttempt } from "./text_attempt.ts";

/**
 * Output characters of an upstream answer in `format`, for an estimate when it reports no
 * usage: the content of every choice (chat `n`) or candidate (Gemini), not the JSON around it.
 */
function answerOutputChars(format: TextFormat, answer: unknown): number {
  const decode = CODECS[format].decodeResponse;
  const fields = answer !== null && typeof answer === "object"
    ? answer as Record<string, unknown>
    : {};
  const each = (list: unknown, field: string) =>
    Array.isArray(list) && list.length > 1
      ? list.reduce(
        (sum, one) => sum + outputCharsOfParts(decode({ ...fields, [field]: [one] }).parts),
        0,
      )
      : outputCharsOfParts(decode(answer).parts);
  const field = findTextInterface(format)?.answersField;
  return field ? each(fields[field], field) : outputCharsOfParts(decode(answer).parts);
}

/**
 * The client's body: the upstream's answer renamed to the public model when the formats match,
 * converted through the neutral form otherwise. Settles the bill from its usage.
 */
export function jsonAnswer(
  attempt: JsonAttempt,
  input: { inbound: TextInbound; channel: Channel; bill: TextBill },
): string {
  const { inbound, channel, bill } = input;
  const upstream = CODECS[attempt.format];
  if (attempt.format === inbound.format) {
    const usage = upstream.usageOf(attempt.answer);
    upstream.renameModel(attempt.answer, inbound.model);
    const body = JSON.stringify(attempt.answer);
    bill.settle(channel, {
      outcome: "completed",
      usage,
      outputChars: answerOutputChars(attempt.format, attempt.answer),
    });
    return body;
  }
  const neutral = upstream.decodeResponse(attempt.answer);
  const toolNames = inbound.neutral().toolNames;
  neutral.parts = neutral.parts.map((part) => restoreDeclaredCall(toolNames, part));
  bill.settle(channel, {
    outcome: "completed",
    usage: neutral.usage,
    outputChars: outputCharsOfParts(neutral.parts),
  });
  return JSON.stringify(
    textInterfaceOf(inbound.format).codec.encodeResponse(neutral, inbound.model, inbound.body),
  );
}
