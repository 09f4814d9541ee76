/**
 * A SigV4 check as AWS does it, written apart from the gateway's signer: the canonical request
 * rebuilt from what arrived (the path as received encoded once more, as for every service but
 * S3; the query sorted; the signed headers as received; the body's SHA-256), the signing key
 * derived from the secret, and the signature compared. Simulators refuse what this refuses, in
 * AWS's words.
 */

/** A refusal in AWS's terms: 403 with its `x-amzn-ErrorType`. */
export interface SigV4Refusal {
  type:
    | "InvalidSignatureException"
    | "UnrecognizedClientException"
    | "MissingAuthenticationTokenException";
  message: string;
}

export interface SigV4Secrets {
  /** Secret access key by access key id. */
  secrets: Record<string, string>;
  /** Session token required of an access key id (temporary credentials). */
  sessionTokens?: Record<string, string>;
  region: string;
  service: string;
  /** The clock (tests of the vectors pass theirs); a request more than 15 minutes off is refused. */
  now?: () => Date;
}

const encoder = new TextEncoder();

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function sha256(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return hex(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

async function hmac(key: ArrayBuffer | Uint8Array, text: string): Promise<ArrayBuffer> {
  const imported = await crypto.subtle.importKey(
    "raw",
    key as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return await crypto.subtle.sign("HMAC", imported, encoder.encode(text));
}

/** RFC 3986 encoding, as SigV4 has it: everything but unreserved characters. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `host`, or HTTP/2's `:authority` (which AWS's SDKs sign when they speak HTTP/2). */
function isHost(name: string): boolean {
  return name === "host" || name === ":authority";
}

/** The canonical request of a received request whose body is `body`. */
export async function canonicalRequest(
  request: { method: string; url: string; headers: Headers },
  signedHeaders: string[],
  body: Uint8Array,
): Promise<string> {
  const url = new URL(request.url);
  const path = url.pathname.split("/").map(uriEncode).join("/") || "/";
  const query = [...url.searchParams].map(([name, value]) => [uriEncode(name), uriEncode(value)])
    .sort(([a, x], [b, y]) => a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0)
    .map((pair) => pair.join("=")).join("&");
  const headers = signedHeaders.map((name) =>
    `${name}:${
      (isHost(name) ? url.host : request.headers.get(name) ?? "").trim().replace(/\s+/g, " ")
    }\n`
  ).join("");
  return [request.method, path, query, headers, signedHeaders.join(";"), await sha256(body)]
    .join("\n");
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;:-]+), ?Signature=([0-9a-f]{64})$/;

/** The signature `secret` makes for the canonical request, at `amzDate` in `region`/`service`. */
export async function signatureOf(
  canonical: string,
  scope: { secret: string; amzDate: string; region: string; service: string },
): Promise<string> {
  const day = scope.amzDate.slice(0, 8);
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", scope.amzDate, credentialScope, await sha256(canonical)]
    .join("\n");
  let key = await hmac(encoder.encode(`AWS4${scope.secret}`), day);
  for (const part of [scope.region, scope.service, "aws4_request"]) key = await hmac(key, part);
  return hex(await hmac(key, toSign));
}

/** Why AWS would refuse `request` (with `body`), or undefined when its signature holds. */
export async function sigV4Refusal(
  request: { method: string; url: string; headers: Headers },
  body: Uint8Array,
  secrets: SigV4Secrets,
): Promise<SigV4Refusal | undefined> {
  const authorization = request.headers.get("authorization");
  const amzDate = request.headers.get("x-amz-date");
  if (!authorization || !amzDate) {
    return { type: "MissingAuthenticationTokenException", message: "Missing Authentication Token" };
  }
  const match = AUTH.exec(authorization);
  if (!match || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    return {
      type: "InvalidSignatureException",
      message: "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders'",
    };
  }
  const [, keyId, day, region, service, signed, signature] = match;
  const secret = secrets.secrets[keyId];
  if (secret === undefined) {
    return {
      type: "UnrecognizedClientException",
      message: "The security token included in the request is invalid.",
    };
  }
  const token = secrets.sessionTokens?.[keyId];
  if (token !== undefined && request.headers.get("x-amz-security-token") !== token) {
    return {
      type: "UnrecognizedClientException",
      message: "The security token included in the request is invalid.",
    };
  }
  if (region !== secrets.region || service !== secrets.service || day !== amzDate.slice(0, 8)) {
    return {
      type: "InvalidSignatureException",
      message: `Credential should be scoped to a valid region and service: ` +
        `'${secrets.region}'/'${secrets.service}', not '${region}'/'${service}'.`,
    };
  }
  const signedHeaders = signed.split(";");
  if (!signedHeaders.some(isHost) || !signedHeaders.includes("x-amz-date")) {
    return { type: "InvalidSignatureException", message: "Host and x-amz-date must be signed." };
  }
  const at = Date.UTC(
    +amzDate.slice(0, 4),
    +amzDate.slice(4, 6) - 1,
    +amzDate.slice(6, 8),
    +amzDate.slice(9, 11),
    +amzDate.slice(11, 13),
    +amzDate.slice(13, 15),
  );
  const now = (secrets.now ?? (() => new Date()))();
  if (Math.abs(now.getTime() - at) > 15 * 60_000) {
    return {
      type: "InvalidSignatureException",
      message: `Signature expired: ${amzDate} is now earlier than ${
        new Date(now.getTime() - 15 * 60_000).toISOString().replace(/[:-]|\.\d{3}/g, "")
      } (${now.toISOString().replace(/[:-]|\.\d{3}/g, "")} - 15 min.)`,
    };
  }
  const canonical = await canonicalRequest(request, signedHeaders, body);
  const expected = await signatureOf(canonical, { secret, amzDate, region, service });
  if (expected !== signature) {
    return {
      type: "InvalidSignatureException",
      message: "The request signature we calculated does not match the signature you " +
        "provided. Check your AWS Secret Access Key and signing method. Consult the service " +
        "documentation for details.",
    };
  }
  return undefined;
}
