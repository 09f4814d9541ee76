/** The whole (non-stream) answer of a text request, in the inbound format, and its bill. */

import type { Channel } from "../channels/channel_schema.ts";
import { CODECS } from "../formats/codecs.ts";
import type { NeutralPart } from "../formats/neutral.ts";
import { restoreDeclaredCall } from "../formats/tool_names.ts";
import type { TextInbound } from "./inbound.ts";
import type { TextBill } from "./text_bill.ts";
import type { JsonAttempt } from "./text_attempt.ts";

function partChars(parts: NeutralPart[]): number {
  let chars = 0;
  for (const part of parts) {
    if (part.type === "text" || part.type === "reasoning") chars += part.text.length;
    else if (part.type === "tool_call") chars += part.name.length + part.arguments.length;
  }
  return chars;
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
    bill.settle(channel, { outcome: "completed", usage, outputChars: body.length });
    return body;
  }
  const neutral = upstream.decodeResponse(attempt.answer);
  const toolNames = inbound.neutral().toolNames;
  neutral.parts = neutral.parts.map((part) => restoreDeclaredCall(toolNames, part));
  bill.settle(channel, {
    outcome: "completed",
    usage: neutral.usage,
    outputChars: partChars(neutral.parts),
  });
  return JSON.stringify(CODECS[inbound.format].encodeResponse(neutral, inbound.model));
}
