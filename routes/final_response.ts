/**
 * The last step before Deno writes an answer, for every route and the chat fast path:
 *
 * - A header value Deno's HTTP server cannot write (a control character) makes it panic, which
 *   ends the process and every request in flight. Header values built from client or upstream
 *   text go through core/util/header_value.ts; should one still slip through, it is dropped here
 *   and logged, and the answer goes out without it.
 * - An answer given before the request body was read to its end (413 for a body over the limit,
 *   408 for a client that stalled, a multipart body the parser gave up on) says
 *   `connection: close`, and the connection is closed once it is written. Deno 2.9 does that
 *   only if the body is still open when the answer goes out and is cancelled after: cancelled
 *   before, Deno reads the rest of the body (however large, however slowly sent) and then serves
 *   the next request on that connection. So the body readers release the body instead of
 *   cancelling it, and it is cancelled here, after the answer.
 */

import { isWritableHeaderValue } from "../core/util/header_value.ts";
import { bodyAbandoned, releaseBodyGuard } from "./body_idle.ts";

/** Statuses the gateway answers before it has read the whole body. */
const EARLY_STATUSES = new Set([408, 413]);

/** What Deno.serve passes beside the request (absent when the app is called directly). */
export interface ServeInfo {
  /** Settles once the answer has been handed to the connection. */
  completed?: Promise<void>;
}

export function finalResponse(
  response: Response,
  request: Request,
  info: ServeInfo | undefined,
): Response {
  let unwritable: string[] | undefined;
  for (const [name, value] of response.headers) {
    if (!isWritableHeaderValue(value)) (unwritable ??= []).push(name);
  }
  const early = EARLY_STATUSES.has(response.status) || bodyAbandoned(request);
  if (!unwritable && !early) return response;
  if (unwritable) {
    console.error(
      JSON.stringify({ msg: "unwritable response header dropped", headers: unwritable }),
    );
  }
  const headers = new Headers(response.headers);
  for (const name of unwritable ?? []) headers.delete(name);
  if (early) {
    headers.set("connection", "close");
    cancelBodyAfterAnswer(request, info);
  }
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** Holds `request`'s body open until the answer is out, then cancels it. */
function cancelBodyAfterAnswer(request: Request, info: ServeInfo | undefined): void {
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  releaseBodyGuard(request);
  try {
    const body = request.body;
    if (!body || body.locked) return;
    reader = body.getReader();
  } catch {
    return; // the request is closed already: nothing is left to read
  }
  // A turn after `completed`: Deno settles it as it takes the answer, before writing it.
  const cancel = () => setTimeout(() => reader.cancel().catch(() => {}), 0);
  if (info?.completed) info.completed.then(cancel, cancel);
  else cancel();
}
