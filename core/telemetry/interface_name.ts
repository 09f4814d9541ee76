/**
 * The client interface a request record names: exact for the OpenAI family, whose routes are
 * different APIs behind one credential form (issue 15: `/v1/responses` is not "openai").
 */

import type { ClientInterface } from "../keys/credentials.ts";

export type InterfaceName =
  | "openai-chat"
  | "openai-responses"
  | "openai-images"
  | "video"
  | ClientInterface;

/** Every name a request record may carry. */
export const INTERFACE_NAMES: readonly InterfaceName[] = [
  "openai-chat",
  "openai-responses",
  "openai-images",
  "video",
  "openai",
  "anthropic",
  "gemini",
];

const OPENAI_ROUTES: Array<[prefix: string, name: InterfaceName]> = [
  ["/v1/chat/completions", "openai-chat"],
  ["/v1/responses", "openai-responses"],
  ["/v1/images", "openai-images"],
  ["/v1/video", "video"],
];

/** The name of `family`'s interface for a request that matched `route` (a route template). */
export function interfaceName(family: ClientInterface, route: string): InterfaceName {
  if (family !== "openai") return family;
  for (const [prefix, name] of OPENAI_ROUTES) {
    if (route === prefix || route.startsWith(`${prefix}/`)) return name;
  }
  return family;
}
