/**
 * A caller's key as presented (service-spec "Authentication" and the real SDKs' forms in
 * reference/clients.md). Where each interface reads it is the interface's own rule
 * (core/formats/<format>/credential.ts); the table of interfaces (core/formats/interfaces.ts)
 * reads it for routes.
 */

/** The client family a request belongs to ("openai", "anthropic", "gemini", or a newer row's). */
export type ClientInterface = string;

/**
 * How the credential was presented: "bearer", "x-api-key", "x-goog-api-key",
 * "x-vendor-api-key", "query-key", or a newer interface's header.
 */
export type CredentialForm = string;

export interface PresentedCredential {
  secret: string;
  form: CredentialForm;
}

/** The token of an `Authorization: Bearer <token>` header, which every family accepts. */
export function bearerToken(headers: Headers): string | undefined {
  const value = headers.get("authorization");
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/** A bearer credential, if one was sent. */
export function bearerCredential(headers: Headers): PresentedCredential | undefined {
  const token = bearerToken(headers);
  return token ? { secret: token, form: "bearer" } : undefined;
}
