/**
 * Removes secrets from text that came from outside (an upstream's error message) before it
 * reaches a client or a log: the channel's own keys wherever they appear — also split by spaces
 * or other characters, or percent- or JSON-escaped (secret_spans.ts) — and anything shaped like a
 * provider key or a bearer token.
 */

import { replaceSpans, secretSpans } from "./secret_spans.ts";

const SECRET_SHAPES: RegExp[] = [
  /\bsk-[A-Za-z0-9_\-]{8,}/g, // OpenAI, Anthropic (sk-ant-…), this gateway's own (sk-gw-…)
  /\bAIza[0-9A-Za-z_\-]{20,}/g, // Google API keys
  /\bgw-admin-[A-Za-z0-9]{8,}/g, // this gateway's admin token
  /\bgwpat-[A-Za-z0-9]{8,}/g, // this gateway's personal access tokens
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+\/=\-]{8,}/gi,
  /\b(api[_-]?key|x-api-key|x-goog-api-key|key|token|secret)(["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+\/\-]{8,}/gi,
];

const MAX_LENGTH = 1_000;

/** What stands in a secret's place. */
export const REDACTED = "[redacted]";

/**
 * `text` with `secrets` and secret-shaped strings replaced by `[redacted]`, and bounded to
 * `maxLength` characters (1,000 unless given).
 */
export function redactSecrets(
  text: string,
  secrets: readonly string[] = [],
  options: { maxLength?: number } = {},
): string {
  const maxLength = options.maxLength ?? MAX_LENGTH;
  let out = secrets.length ? replaceSpans(text, secretSpans(text, secrets), REDACTED) : text;
  for (const shape of SECRET_SHAPES) {
    out = out.replace(shape, (match, ...groups) => {
      const prefix = typeof groups[0] === "string" && /^(Bearer|Basic)$/i.test(groups[0])
        ? `${groups[0]} `
        : typeof groups[1] === "string" && match.startsWith(groups[0])
        ? `${groups[0]}${groups[1]}`
        : "";
      return `${prefix}${REDACTED}`;
    });
  }
  return out.length > maxLength ? `${out.slice(0, maxLength)}… [truncated]` : out;
}
