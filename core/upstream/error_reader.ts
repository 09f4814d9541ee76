/** Reads an upstream's error answer into an attempt error, one dialect per provider family. */

import { retryAfterValue } from "../util/header_value.ts";
import { readLimited } from "../util/read_limited.ts";
import { redactSecrets } from "../util/redact.ts";
import { isRetryableStatus, UpstreamAttemptError } from "./attempt.ts";

/** Error bodies are read up to this many bytes: enough for any real message. */
const MAX_ERROR_BYTES = 64 * 1024;

async function readErrorText(response: Response): Promise<string> {
  if (!response.body) return "";
  try {
    const bytes = await readLimited(response.body, {
      maxBytes: MAX_ERROR_BYTES,
      tooLarge: () => new Error("error body too large"),
    });
    return new TextDecoder().decode(bytes);
  } catch {
    return "";
  }
}

/** How one provider family writes its errors (each provider file has its own). */
export interface ErrorDialect {
  /** The message and machine code in a parsed error body, read by the provider's schema. */
  read(body: unknown): { message?: string; code?: string };
  /** Whether an answer refuses the channel's own credential, beside 401 and 403. */
  refusesCredential?(status: number, message: string): boolean;
  /** A provider's own status in standard terms (Anthropic's 529 overloaded is a 503). */
  normalStatus?(status: number): number;
}

/**
 * Reads `response`'s error answer. A refused channel credential is named as such (never the
 * upstream's words, which may quote the key) and is a failover, as is any status that says
 * "this channel, now".
 */
export async function readUpstreamError(
  response: Response,
  { dialect, secrets }: { dialect: ErrorDialect; secrets: readonly string[] },
): Promise<UpstreamAttemptError> {
  const text = await readErrorText(response);
  let message = `HTTP ${response.status}`;
  let code: string | undefined;
  try {
    const fields = dialect.read(JSON.parse(text));
    if (typeof fields.message === "string") {
      message = `HTTP ${response.status}: ${redactSecrets(fields.message, secrets)}`;
    }
    if (typeof fields.code === "string") code = redactSecrets(fields.code, secrets).slice(0, 100);
  } catch {
    // not JSON: keep the status only
  }
  const credentialRefused = response.status === 401 || response.status === 403 ||
    (dialect.refusesCredential?.(response.status, message) ?? false);
  if (credentialRefused) {
    message = `HTTP ${response.status}: the channel's upstream credential was refused`;
  }
  const status = dialect.normalStatus?.(response.status) ?? response.status;
  return new UpstreamAttemptError(message, {
    retryable: credentialRefused || isRetryableStatus(status),
    // A refused credential is the gateway's problem, never the client's 4xx.
    status: credentialRefused && status !== 401 && status !== 403 ? 502 : status,
    upstreamCode: code,
    retryAfter: retryAfterValue(response.headers.get("retry-after")),
    errorClass: `http_${response.status}`,
  });
}
