/**
 * Where each interface reads the caller's key (service-spec "Authentication" and the real SDKs'
 * forms in reference/clients.md). One place, so every interface, present and future, agrees.
 */

/** The client interface a request belongs to; it decides the credential and error envelope. */
export type ClientInterface = "openai" | "anthropic" | "gemini";

/** How the credential was presented; it also decides the model-list shape. */
export type CredentialForm =
  | "bearer"
  | "x-api-key"
  | "x-goog-api-key"
  | "x-vendor-api-key"
  | "query-key";

export interface PresentedCredential {
  secret: string;
  form: CredentialForm;
}

function bearer(headers: Headers): string | undefined {
  const value = headers.get("authorization");
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/** Reads the credential for `clientInterface` from headers and (Gemini only) `?key=`. */
export function readCredential(
  clientInterface: ClientInterface,
  { headers, url }: { headers: Headers; url: URL },
): PresentedCredential | undefined {
  if (clientInterface === "gemini") {
    const goog = headers.get("x-goog-api-key");
    if (goog) return { secret: goog, form: "x-goog-api-key" };
    const vendor = headers.get("x-vendor-api-key");
    if (vendor) return { secret: vendor, form: "x-vendor-api-key" };
    const query = url.searchParams.get("key");
    if (query) return { secret: query, form: "query-key" };
    const token = bearer(headers);
    return token ? { secret: token, form: "bearer" } : undefined;
  }
  if (clientInterface === "anthropic") {
    const apiKey = headers.get("x-api-key");
    if (apiKey) return { secret: apiKey, form: "x-api-key" };
  }
  const token = bearer(headers);
  return token ? { secret: token, form: "bearer" } : undefined;
}

/**
 * Reads a credential in any form a model interface takes (Bearer, x-api-key, x-goog-api-key,
 * x-vendor-api-key, ?key=): for routes every SDK family's key may call, such as /v1/me.
 */
export function readAnyCredential(
  request: { headers: Headers; url: URL },
): PresentedCredential | undefined {
  const token = bearer(request.headers);
  if (token) return { secret: token, form: "bearer" };
  return readCredential("anthropic", request) ?? readCredential("gemini", request);
}

/**
 * The interface a path belongs to. `/v1/models` is shared by three SDK families: the request's
 * credential headers pick the family, as new-api does.
 */
export function interfaceOfRequest(
  path: string,
  { headers, url }: { headers: Headers; url: URL },
): ClientInterface {
  if (path.startsWith("/v1/messages")) return "anthropic";
  if (path.startsWith("/v1beta/") || path === "/v1beta" || /:[A-Za-z]+$/.test(path)) {
    return "gemini";
  }
  if (path === "/v1/models" || path.startsWith("/v1/models/")) {
    if (
      headers.has("x-goog-api-key") || headers.has("x-vendor-api-key") ||
      url.searchParams.has("key")
    ) {
      return "gemini";
    }
    if (
      headers.has("anthropic-version") || headers.has("vendor-version") || headers.has("x-api-key")
    ) {
      return "anthropic";
    }
  }
  return "openai";
}
