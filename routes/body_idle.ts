/**
 * How long a client may pause while sending a request body, per request: the middleware notes it,
 * and every body read (JSON, multipart) enforces it, answering 408 once the client stalls. Noting
 * it costs nothing on requests whose body is read at once (no stream wrapper per request).
 */

import { GatewayError } from "../core/errors.ts";
import { idleGuarded } from "../core/util/idle_stream.ts";

const idleMsOfRequest = new WeakMap<Request, number>();
const abandonedBodies = new WeakSet<Request>();
const guardReleases = new WeakMap<Request, AbortController>();

/** Notes that `request`'s body may pause at most `idleMs` between two chunks. */
export function limitBodyIdle(request: Request, idleMs: number): void {
  idleMsOfRequest.set(request, idleMs);
}

/** The 408 of a client that stalled `idleMs`. */
export function bodyIdleError(idleMs: number): GatewayError {
  return new GatewayError(
    "request_timeout",
    408,
    `The client sent nothing for ${idleMs} ms while sending the request body; send it faster`,
  );
}

/** The idle limit noted for `request`, if any. */
export function bodyIdleMs(request: Request): number | undefined {
  return idleMsOfRequest.get(request);
}

/** `request` whose body stream fails with 408 once it stalls (for readers that take a Request). */
export function idleLimitedRequest(request: Request): Request {
  const idleMs = bodyIdleMs(request);
  if (idleMs === undefined || !request.body) return request;
  const release = new AbortController();
  guardReleases.set(request, release);
  return new Request(request, {
    body: idleGuarded(request.body, {
      idleMs,
      onIdle: () => bodyIdleError(idleMs),
      keepSource: true,
      release: release.signal,
    }),
  });
}

/** Lets go of `request`'s body where `idleLimitedRequest` still holds it (a reader gave up). */
export function releaseBodyGuard(request: Request): void {
  guardReleases.get(request)?.abort();
}

/**
 * Notes that the gateway stopped reading `request`'s body before its end (a multipart part over
 * a cap): its answer closes the connection, as a 408 or 413 does (routes/final_response.ts).
 */
export function abandonBody(request: Request): void {
  abandonedBodies.add(request);
}

/** Whether `abandonBody` was called for `request`. */
export function bodyAbandoned(request: Request): boolean {
  return abandonedBodies.has(request);
}
