/**
 * Token estimates for a chat request, used where no upstream count exists.
 * - The hold uses an upper bound: one token per UTF-8 byte of text (a token is never shorter
 *   than one byte), a fixed 1,600 per image part, 8 per message for framing.
 * - A bill without upstream usage uses the common estimate of 4 characters per token.
 */

import type { ChatRequest } from "./request_schema.ts";

const IMAGE_PART_TOKENS = 1_600;
const PER_MESSAGE_TOKENS = 8;
const encoder = new TextEncoder();

function byteLength(text: string): number {
  // Exact UTF-8 length without allocating for ASCII-only text.
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length;
  }
  return text.length;
}

/** Visits every text and image of the request's messages and tool definitions. */
function measure(request: ChatRequest, text: (value: string) => void, image: () => void) {
  for (const message of request.messages) {
    const content = message.content;
    if (typeof content === "string") text(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part.type === "text" && typeof part.text === "string") text(part.text);
        else if (part.type === "image_url" || part.type === "input_image") image();
        else text(JSON.stringify(part));
      }
    }
    const { role: _role, content: _content, ...rest } = message;
    if (Object.keys(rest).length) text(JSON.stringify(rest));
  }
  if (request.tools) text(JSON.stringify(request.tools));
}

/** An upper bound of the request's input tokens. */
export function promptTokensUpperBound(request: ChatRequest): number {
  let tokens = request.messages.length * PER_MESSAGE_TOKENS;
  measure(request, (value) => tokens += byteLength(value), () => tokens += IMAGE_PART_TOKENS);
  return tokens;
}

/** A typical estimate of the request's input tokens. */
export function estimatePromptTokens(request: ChatRequest): number {
  let chars = 0;
  let images = 0;
  measure(request, (value) => chars += value.length, () => images++);
  return Math.ceil(chars / 4) + images * IMAGE_PART_TOKENS + request.messages.length * 4;
}

/** A typical estimate of the tokens in `chars` characters of output. */
export function estimateOutputTokens(chars: number): number {
  return Math.ceil(chars / 4);
}
