/**
 * Where Google's SDKs send the key: `x-goog-api-key` (or `x-vendor-api-key`), the `?key=` query
 * parameter, else `Authorization: Bearer`.
 */

import { bearerCredential, type PresentedCredential } from "../../keys/credentials.ts";
import type { CredentialSource } from "../text_interface.ts";

export function readGeminiCredential(
  { headers, url }: CredentialSource,
): PresentedCredential | undefined {
  const goog = headers.get("x-goog-api-key");
  if (goog) return { secret: goog, form: "x-goog-api-key" };
  const vendor = headers.get("x-vendor-api-key");
  if (vendor) return { secret: vendor, form: "x-vendor-api-key" };
  const query = url.searchParams.get("key");
  if (query) return { secret: query, form: "query-key" };
  return bearerCredential(headers);
}

/** Credentials only Google's SDKs send: on the shared model list they pick its shape. */
export function sendsGeminiCredential({ headers, url }: CredentialSource): boolean {
  return headers.has("x-goog-api-key") || headers.has("x-vendor-api-key") ||
    url.searchParams.has("key");
}

/** Paths of the generate-content interface: `/v1beta/…`, and any `…:action` path. */
export function isGeminiPath(path: string): boolean {
  return path.startsWith("/v1beta/") || path === "/v1beta" || /:[A-Za-z]+$/.test(path);
}

export const GEMINI_MISSING_CREDENTIAL =
  "No API key given; send it in the x-goog-api-key (or x-vendor-api-key) header, " +
  "as the ?key= query parameter, or as 'Authorization: Bearer <key>'";
