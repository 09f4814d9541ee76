/** Where Anthropic's SDKs send the key: `x-api-key`, else `Authorization: Bearer`. */

import { bearerCredential, type PresentedCredential } from "../../keys/credentials.ts";
import type { CredentialSource } from "../text_interface.ts";

export function readAnthropicCredential(
  { headers }: CredentialSource,
): PresentedCredential | undefined {
  const apiKey = headers.get("x-api-key");
  if (apiKey) return { secret: apiKey, form: "x-api-key" };
  return bearerCredential(headers);
}

/** Headers only Anthropic's SDKs send: on the shared model list they pick its shape. */
export function sendsAnthropicCredential({ headers }: CredentialSource): boolean {
  return headers.has("anthropic-version") || headers.has("vendor-version") ||
    headers.has("x-api-key");
}

export const ANTHROPIC_MISSING_CREDENTIAL = "No API key given; send it in the x-api-key header";
