/** Where OpenAI's SDKs (chat, responses, images, video) send the key: `Authorization: Bearer`. */

import { bearerCredential, type PresentedCredential } from "../../keys/credentials.ts";
import type { CredentialSource } from "../text_interface.ts";

export function readOpenAICredential(
  { headers }: CredentialSource,
): PresentedCredential | undefined {
  return bearerCredential(headers);
}

export const OPENAI_MISSING_CREDENTIAL =
  "No API key given; send it as 'Authorization: Bearer <key>'";
