/**
 * How a `bedrock` channel's calls are authorised: AWS Signature Version 4 (signed by `aws4fetch`)
 * with keys written `ACCESS_KEY_ID:SECRET_ACCESS_KEY` (or `…:SESSION_TOKEN` for temporary
 * credentials), or a Bedrock API key sent as a bearer token (`bedrock_auth: "api-key"`).
 *
 * Signing covers the method, the path as sent, the query, `host`, `x-amz-date`, the session
 * token and the request's own headers, and the body's SHA-256. Bedrock is not S3, so the path is
 * encoded once more in the canonical request: a model id's `:` is `%3A` in the URL and `%253A`
 * in what is signed.
 */

import { AwsV4Signer } from "aws4fetch";
import type { Channel } from "../channels/channel_schema.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";

/** The service name Bedrock's runtime endpoints are signed for. */
export const BEDROCK_SIGNING_SERVICE = "bedrock";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * The credentials in a channel key `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`, or
 * undefined when it is not one. (None of the three holds a `:`: ids are upper-case letters and
 * digits, secrets and session tokens base64.)
 */
export function awsCredentialsOf(key: string): AwsCredentials | undefined {
  const [accessKeyId, secretAccessKey, sessionToken, ...rest] = key.split(":");
  if (rest.length || !accessKeyId || !secretAccessKey || sessionToken === "") return undefined;
  if (!/^[A-Z0-9]{4,128}$/.test(accessKeyId)) return undefined;
  return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
}

/** A request to sign: what it is sent with, and when (`YYYYMMDDTHHMMSSZ`; default now). */
export interface SignableRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  datetime?: string;
}

/**
 * `request`'s headers with SigV4's added (`authorization`, `x-amz-date`, and
 * `x-amz-security-token` for temporary credentials), for `service` in `region`.
 */
export async function sigV4Headers(
  request: SignableRequest,
  scope: { credentials: AwsCredentials; region: string; service: string },
): Promise<Record<string, string>> {
  const signer = new AwsV4Signer({
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: request.body,
    ...scope.credentials,
    region: scope.region,
    service: scope.service,
    // Every header given is signed (content-type and accept too), as AWS's SDKs do.
    allHeaders: true,
    ...(request.datetime && { datetime: request.datetime }),
  });
  const signed = await signer.sign();
  return Object.fromEntries(signed.headers);
}

/**
 * The headers a Bedrock call carries with `apiKey` of `channel`: signed with SigV4 for the
 * channel's region, or the API key as a bearer token. A key that is not in the form the channel's
 * `bedrock_auth` needs fails the attempt, in words that quote none of it.
 */
export async function bedrockAuthHeaders(
  channel: Channel,
  apiKey: string,
  request: SignableRequest,
): Promise<Record<string, string>> {
  if (channel.bedrock_auth === "api-key") {
    return { ...request.headers, authorization: `Bearer ${apiKey}` };
  }
  const credentials = awsCredentialsOf(apiKey);
  if (!credentials) {
    throw new UpstreamAttemptError(
      "bad_key: a bedrock key is ACCESS_KEY_ID:SECRET_ACCESS_KEY (or with :SESSION_TOKEN), or " +
        "set bedrock_auth to 'api-key' for Bedrock API keys",
      { retryable: true, errorClass: "network" },
    );
  }
  return await sigV4Headers(request, {
    credentials,
    region: channel.region ?? "",
    service: BEDROCK_SIGNING_SERVICE,
  });
}
