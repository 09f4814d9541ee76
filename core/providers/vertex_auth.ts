/**
 * Vertex AI's credential: a service account's JSON key. The gateway signs a JWT with the key's
 * private key (RS256: iss = client_email, scope cloud-platform, aud = token_uri, one hour),
 * exchanges it at the key's `token_uri` for an OAuth access token, and keeps the token per key
 * until shortly before it expires (core/upstream/token_cache.ts). The key and the JWT never
 * appear in an error: a refusal is described in the gateway's words and the endpoint's code.
 */

import { importPKCS8, SignJWT } from "jose";
import { z } from "zod";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { cachedToken, type IssuedToken, upstreamTokens } from "../upstream/token_cache.ts";
import { sha256Hex } from "../util/ids.ts";
import { readLimited } from "../util/read_limited.ts";
import { optionalString, readLenientJson, unknownField } from "../util/lenient_schema.ts";

/** The OAuth scope of every Vertex AI call. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** Where keys that name none send their JWT (Google's keys all name this one). */
export const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
const JWT_LIFETIME_S = 3600;
const TOKEN_FETCH_TIMEOUT_MS = 30_000;
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/** The fields of a service account key the gateway reads. */
export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

/** What a service account key must be: JSON with these fields (others are kept, unread). */
const serviceAccountSchema = z.looseObject({
  type: z.string().optional(),
  client_email: z.string(),
  private_key: z.string(),
  private_key_id: z.string().optional(),
  token_uri: z.string().optional(),
});

/**
 * The service account in `key`, or what is wrong with it, in words that quote no part of it:
 * not JSON, not a service account key, no private_key or client_email, a token_uri that is not
 * an http(s) URL.
 */
export function readServiceAccount(key: string): ServiceAccount | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    return {
      problem: "is not JSON: a vertex channel's key is a service account's JSON key file, whole",
    };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { problem: "is not a JSON object: a service account's JSON key file is one" };
  }
  const fields = parsed as Record<string, unknown>;
  if (fields.type !== undefined && fields.type !== "service_account") {
    return {
      problem: `is a '${String(fields.type).slice(0, 40)}' credential, not a service account ` +
        `key ("type": "service_account")`,
    };
  }
  for (const name of ["private_key", "client_email"]) {
    if (typeof fields[name] !== "string" || fields[name] === "") {
      return { problem: `has no ${name}: a service account's JSON key file has one` };
    }
  }
  const account = serviceAccountSchema.parse(fields);
  if (!account.private_key.includes("-----BEGIN PRIVATE KEY-----")) {
    return { problem: "has a private_key that is not a PEM PKCS#8 key ('-----BEGIN PRIVATE KEY')" };
  }
  const tokenUri = account.token_uri ?? GOOGLE_TOKEN_URI;
  const url = URL.parse(tokenUri);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    return { problem: "has a token_uri that is not an http(s) URL" };
  }
  return {
    client_email: account.client_email,
    private_key: account.private_key,
    private_key_id: account.private_key_id,
    token_uri: tokenUri,
  };
}

/** What is wrong with `key` as a vertex channel's key, or undefined. */
export function serviceAccountProblem(key: string): string | undefined {
  const read = readServiceAccount(key);
  return "problem" in read ? read.problem : undefined;
}

/** The signed JWT that asks `account.token_uri` for a cloud-platform token. */
export async function serviceAccountAssertion(
  account: ServiceAccount,
  nowMs: number,
): Promise<string> {
  const privateKey = await importPKCS8(account.private_key, "RS256");
  const issuedAt = Math.floor(nowMs / 1000);
  return await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
    .setProtectedHeader({
      alg: "RS256",
      typ: "JWT",
      ...(account.private_key_id ? { kid: account.private_key_id } : {}),
    })
    .setIssuer(account.client_email)
    .setAudience(account.token_uri)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + JWT_LIFETIME_S)
    .sign(privateKey);
}

/** The token endpoint's answer: a token and its lifetime, or an OAuth error. */
const tokenAnswerSchema = z.looseObject({
  access_token: optionalString,
  expires_in: unknownField,
  error: optionalString,
  error_description: optionalString,
});

/** A token endpoint's words, kept short and to the printable ASCII they are written in. */
function endpointWords(text: string | undefined): string {
  return (text ?? "").replace(/[^\x20-\x7e]/g, " ").slice(0, 200);
}

/** Exchanges a JWT signed with `account`'s key for an access token. */
async function fetchAccessToken(
  account: ServiceAccount,
  nowMs: () => number,
): Promise<IssuedToken> {
  let assertion: string;
  try {
    assertion = await serviceAccountAssertion(account, nowMs());
  } catch {
    throw new UpstreamAttemptError(
      "token: the service account's private_key could not sign (not an RSA PKCS#8 key)",
      { retryable: true, status: 401, errorClass: "http_401" },
    );
  }
  let response: Response;
  try {
    response = await fetch(account.token_uri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion,
      }),
      redirect: "manual",
      signal: AbortSignal.timeout(TOKEN_FETCH_TIMEOUT_MS),
    });
  } catch {
    throw new UpstreamAttemptError(
      "network: the service account's token endpoint could not be reached",
      { retryable: true, errorClass: "network" },
    );
  }
  // Bounded: a token answer is a few hundred bytes, and the endpoint is the key's to name.
  const text = response.body
    ? new TextDecoder().decode(
      await readLimited(response.body, {
        maxBytes: MAX_TOKEN_ANSWER_BYTES,
        tooLarge: () => new Error("too large"),
      }).catch(() => new Uint8Array()),
    )
    : "";
  let answer: Partial<z.infer<typeof tokenAnswerSchema>> = {};
  try {
    answer = readLenientJson(tokenAnswerSchema, text);
  } catch {
    // not JSON: judged by the status below
  }
  if (!response.ok) {
    const said = answer.error
      ? ` (${endpointWords(answer.error)}${
        answer.error_description ? `: ${endpointWords(answer.error_description)}` : ""
      })`
      : "";
    // 400/401 invalid_grant: the key is wrong, revoked or its JWT refused; the key's fault.
    const refused = response.status === 400 || response.status === 401 ||
      response.status === 403;
    throw new UpstreamAttemptError(
      `token: the token endpoint answered HTTP ${response.status}${said}` +
        (refused ? "; the channel's service account key was refused" : ""),
      {
        retryable: true,
        status: refused ? 401 : response.status,
        upstreamCode: answer.error,
        errorClass: `http_${response.status}`,
      },
    );
  }
  const lifetime = answer.expires_in;
  if (!answer.access_token || typeof lifetime !== "number" || !(lifetime > 0)) {
    throw new UpstreamAttemptError(
      "token: the token endpoint's answer has no access_token with an expires_in",
      { retryable: true, errorClass: "bad_answer" },
    );
  }
  return { token: answer.access_token, expiresAt: nowMs() + lifetime * 1000 };
}

/** A key as calls use it: its account, and its cache entry's name (its digest, not its text). */
interface ReadKey {
  account: ServiceAccount;
  cacheKey: string;
}

/** Keys read so far, so a call does not parse and hash its key again; cleared past a bound. */
const readKeys = new Map<string, ReadKey>();
const MAX_READ_KEYS = 1000;

async function readKey(key: string): Promise<ReadKey> {
  const known = readKeys.get(key);
  if (known) return known;
  const account = readServiceAccount(key);
  if ("problem" in account) {
    throw new UpstreamAttemptError(`token: the channel's key ${account.problem}`, {
      retryable: true,
      status: 401,
      errorClass: "http_401",
    });
  }
  const read = { account, cacheKey: `vertex:${await sha256Hex(key)}` };
  if (readKeys.size >= MAX_READ_KEYS) readKeys.clear();
  readKeys.set(key, read);
  return read;
}

/**
 * A cloud-platform access token for the service account `key` (checked at channel create), from
 * the cache while it has time left; `forget` drops it when the upstream refuses it.
 */
export async function vertexAccessToken(
  key: string,
): Promise<{ token: string; forget: () => void }> {
  const { account, cacheKey } = await readKey(key);
  const token = await cachedToken(
    cacheKey,
    () => fetchAccessToken(account, () => upstreamTokens.now()),
  );
  return { token, forget: () => upstreamTokens.forget(cacheKey, token) };
}
