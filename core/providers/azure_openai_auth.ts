/**
 * How an Azure OpenAI call signs in, by the channel's `azure_auth`: its key as `api-key` (the
 * default), its key as an Entra ID bearer token, or its key as an Entra ID client secret, which
 * is exchanged at the tenant's token endpoint (client credentials, scope Cognitive Services) for a
 * bearer token kept until shortly before it expires (core/upstream/token_cache.ts).
 */

import type { Channel } from "../channels/channel_schema.ts";
import { z } from "zod";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { expiresAtOf, type FetchedToken, upstreamTokens } from "../upstream/token_cache.ts";
import { sha256Hex } from "../util/ids.ts";
import { optionalString, readLenient } from "../util/lenient_schema.ts";
import { redactSecrets } from "../util/redact.ts";

/** Where Entra ID tokens come from when the channel names no other authority. */
export const DEFAULT_ENTRA_AUTHORITY = "https://login.microsoftonline.com";

/** What the token is for: Azure OpenAI (Cognitive Services) data-plane calls. */
export const AZURE_OPENAI_SCOPE = "https://cognitiveservices.azure.com/.default";

/** The longest wait for a token endpoint's answer. */
const TOKEN_TIMEOUT_MS = 30_000;

const tokenAnswerSchema = z.looseObject({
  access_token: optionalString,
  expires_in: z.unknown().optional(),
  error: optionalString,
  error_description: optionalString,
});

/** The token endpoint of a channel's tenant. */
export function entraTokenUrl(channel: Channel): string {
  const authority = channel.entra_authority ?? DEFAULT_ENTRA_AUTHORITY;
  return `${authority}/${encodeURIComponent(channel.entra_tenant_id ?? "")}/oauth2/v2.0/token`;
}

/** Asks the tenant's token endpoint for a token with the client secret `secret`. */
export async function fetchEntraToken(channel: Channel, secret: string): Promise<FetchedToken> {
  const asked = Date.now();
  let response: Response;
  try {
    response = await fetch(entraTokenUrl(channel), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: channel.entra_client_id ?? "",
        client_secret: secret,
        scope: AZURE_OPENAI_SCOPE,
      }),
      redirect: "manual",
      signal: AbortSignal.timeout(Math.min(channel.timeout_ms, TOKEN_TIMEOUT_MS)),
    });
  } catch {
    throw new UpstreamAttemptError("network: the Entra ID token endpoint did not answer", {
      retryable: true,
      errorClass: "network",
    });
  }
  let answer: Partial<z.infer<typeof tokenAnswerSchema>> = {};
  try {
    answer = readLenient(tokenAnswerSchema, await response.json());
  } catch {
    // Not JSON: judged by its status below.
  }
  const expiresIn = Number(answer.expires_in);
  if (response.ok && answer.access_token && Number.isFinite(expiresIn) && expiresIn > 0) {
    return { token: answer.access_token, expiresAt: expiresAtOf(expiresIn, asked) };
  }
  const why = answer.error
    ? ` (${redactSecrets(answer.error, [secret]).slice(0, 100)})`
    : response.ok
    ? " (its answer has no token)"
    : "";
  // 400 invalid_client / unauthorized_client: the secret, client or tenant is wrong or revoked.
  const refused = response.status === 400 || response.status === 401 || response.status === 403;
  throw new UpstreamAttemptError(
    refused
      ? `HTTP 401: the channel's upstream credential was refused by the Entra ID token endpoint${why}`
      : `HTTP ${response.status}: the Entra ID token endpoint gave no token${why}`,
    {
      retryable: true,
      status: refused ? 401 : response.ok ? 502 : response.status,
      errorClass: refused ? "http_401" : `http_${response.status}`,
    },
  );
}

/** The token cache's name for one client secret of one app of one tenant. */
async function tokenCacheKey(channel: Channel, secret: string): Promise<string> {
  const fingerprint = await sha256Hex(secret);
  return [
    "azure-openai",
    channel.entra_authority ?? DEFAULT_ENTRA_AUTHORITY,
    channel.entra_tenant_id,
    channel.entra_client_id,
    fingerprint,
  ].join("|");
}

/**
 * The headers that sign one call on `channel` with its key `apiKey`, and for a fetched token, how
 * to drop it when the upstream refuses it.
 */
export async function azureAuth(
  channel: Channel,
  apiKey: string,
): Promise<{ headers: Record<string, string>; forget?: () => void }> {
  switch (channel.azure_auth ?? "api-key") {
    case "api-key":
      return { headers: { "api-key": apiKey } };
    case "bearer":
      return { headers: { authorization: `Bearer ${apiKey}` } };
    case "entra": {
      const cacheKey = await tokenCacheKey(channel, apiKey);
      const token = await upstreamTokens.get(cacheKey, () => fetchEntraToken(channel, apiKey));
      return {
        headers: { authorization: `Bearer ${token}` },
        forget: () => upstreamTokens.forget(cacheKey),
      };
    }
  }
}

/** The headers that sign one call on `channel` with its key `apiKey`. */
export async function azureAuthHeaders(
  channel: Channel,
  apiKey: string,
): Promise<Record<string, string>> {
  return (await azureAuth(channel, apiKey)).headers;
}
