/** Renders a GatewayError in the envelope of the client family the request belongs to. */

import type { ClientInterface } from "../core/keys/credentials.ts";
import type { GatewayError } from "../core/errors.ts";
import { familyNamed } from "../core/formats/interfaces.ts";

/** The full error response: envelope, status, request id and retry hints. */
export function errorResponse(
  clientInterface: ClientInterface,
  { error, requestId }: { error: GatewayError; requestId: string },
): Response {
  const family = familyNamed(clientInterface);
  const headers = new Headers({
    "content-type": "application/json",
    "x-request-id": requestId,
    ...error.headers,
  });
  if (family.requestIdHeader) headers.set(family.requestIdHeader, requestId);
  if (error.retryable !== undefined) headers.set("x-should-retry", String(error.retryable));
  // Google's and Anthropic's envelopes go with statuses of their own (a 502 is Google's 503
  // UNAVAILABLE; an overloaded upstream is Anthropic's 529).
  const { status, body } = family.errorAnswer(error, requestId);
  return new Response(JSON.stringify(body), { status, headers });
}
