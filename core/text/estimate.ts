/**
 * Token estimates of a neutral request (the same rules as the chat estimates): the hold uses an
 * upper bound of one token per UTF-8 byte of text, 1,600 per image and 8 per message; a bill
 * without upstream usage uses 4 characters per token. An answer's output is estimated from its
 * content alone — text, reasoning and tool-call arguments — never from its envelope, so an
 * answer whole and the same answer streamed estimate alike.
 */

import type { NeutralEvent, NeutralPart, NeutralRequest } from "../formats/neutral.ts";

const IMAGE_TOKENS = 1_600;
const PER_MESSAGE = 8;
const encoder = new TextEncoder();

function bytes(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length;
  }
  return text.length;
}

function measure(request: NeutralRequest, text: (value: string) => void, image: () => void) {
  for (const system of request.system) text(system);
  for (const message of request.messages) {
    for (const part of message.parts) {
      switch (part.type) {
        case "text":
        case "reasoning":
          text(part.text);
          break;
        case "tool_call":
          text(part.name);
          text(part.arguments);
          break;
        case "tool_result":
          text(part.content);
          break;
        default:
          image();
      }
    }
  }
  if (request.tools.length) text(JSON.stringify(request.tools));
}

export function neutralTokensUpperBound(request: NeutralRequest): number {
  let tokens = (request.messages.length + request.system.length) * PER_MESSAGE;
  measure(request, (value) => tokens += bytes(value), () => tokens += IMAGE_TOKENS);
  return tokens;
}

export function estimateNeutralTokens(request: NeutralRequest): number {
  let chars = 0;
  let images = 0;
  measure(request, (value) => chars += value.length, () => images++);
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS + request.messages.length * 4;
}

/** Output characters an estimate counts in an answer's parts: text, reasoning, tool arguments. */
export function outputCharsOfParts(parts: readonly NeutralPart[]): number {
  let chars = 0;
  for (const part of parts) {
    if (part.type === "text" || part.type === "reasoning") chars += part.text.length;
    else if (part.type === "tool_call") chars += part.arguments.length;
  }
  return chars;
}

/** Output characters an estimate counts in one stream event (the same as in parts). */
export function outputCharsOfEvent(event: NeutralEvent): number {
  if (event.type === "text" || event.type === "reasoning") return event.text.length;
  return event.type === "tool_call" ? event.arguments.length : 0;
}
