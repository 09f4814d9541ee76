/**
 * Reasoning signatures with their signer. A provider accepts back only proof it signed itself
 * (Anthropic's thinking signature, Gemini's thought signature, OpenAI's encrypted reasoning), so a
 * signature that reaches a client of another format carries a short prefix naming its signer:
 * when the client replays its history, the signature goes back only to an upstream of that
 * provider, unchanged, and every other upstream drops it and names it. The prefix uses base64
 * characters only, so the value stays valid base64 for clients that check. A signature without
 * the prefix was signed by the provider of the format it arrived in.
 */

import type { TextFormat } from "./neutral.ts";

export type Signer = "anthropic" | "gemini" | "openai-responses" | "bedrock-converse";

/** What a signature proves: Anthropic's redacted thinking is a block of its own. */
export type SignatureKind = "thinking" | "redacted";

/** Where each format's client replays reasoning, the name given when it is dropped. */
export const REASONING_HISTORY_FIELD: Record<TextFormat, string> = {
  "openai-chat": "messages[].reasoning_content",
  "openai-responses": "input[type=reasoning]",
  anthropic: "messages[].content[type=thinking]",
  gemini: "contents[].parts[thought]",
  "bedrock-converse": "messages[].content[reasoningContent]",
};

const PREFIX = "gwsig1";

const CODE_OF: Record<`${Signer}/${SignatureKind}`, string> = {
  "anthropic/thinking": "AN",
  "anthropic/redacted": "AR",
  "gemini/thinking": "GE",
  "gemini/redacted": "GE",
  "openai-responses/thinking": "OR",
  "openai-responses/redacted": "OR",
  "bedrock-converse/thinking": "BC",
  "bedrock-converse/redacted": "BR",
};

const SIGNED_BY: Record<string, { signer: Signer; kind: SignatureKind }> = {
  AN: { signer: "anthropic", kind: "thinking" },
  AR: { signer: "anthropic", kind: "redacted" },
  GE: { signer: "gemini", kind: "thinking" },
  OR: { signer: "openai-responses", kind: "thinking" },
  BC: { signer: "bedrock-converse", kind: "thinking" },
  BR: { signer: "bedrock-converse", kind: "redacted" },
};

/**
 * A signature as it arrived in `format` (from an upstream or a client's history), in the
 * neutral form: one the gateway labelled keeps its label; a bare one is the format's own.
 */
export function signatureFrom(
  raw: string,
  { format, kind = "thinking" }: { format: TextFormat; kind?: SignatureKind },
): string | undefined {
  if (!raw) return undefined;
  if (signedBy(raw)) return raw;
  if (format === "openai-chat") return undefined;
  return PREFIX + CODE_OF[`${format}/${kind}`] + raw;
}

/** The signer and the provider's own value of a neutral signature, or undefined when unlabelled. */
export function signedBy(
  signature: string,
): { signer: Signer; kind: SignatureKind; value: string } | undefined {
  if (!signature.startsWith(PREFIX)) return undefined;
  const found = SIGNED_BY[signature.slice(PREFIX.length, PREFIX.length + 2)];
  return found && { ...found, value: signature.slice(PREFIX.length + 2) };
}

/** The provider's own value of `signature` when `format` signed it, else undefined. */
export function signatureFor(
  signature: string | undefined,
  format: TextFormat,
): { value: string; kind: SignatureKind } | undefined {
  const signed = signature ? signedBy(signature) : undefined;
  return signed?.signer === format ? { value: signed.value, kind: signed.kind } : undefined;
}

/**
 * What a same-format body does with a signature it replays: keep it as it is (unlabelled: the
 * format's own), send the signer's own value, or drop it (another provider signed it).
 */
export function replayVerdict(signature: unknown, own: Signer): "keep" | "drop" | string {
  if (typeof signature !== "string") return "keep";
  const signed = signedBy(signature);
  if (!signed) return "keep";
  return signed.signer === own ? signed.value : "drop";
}
