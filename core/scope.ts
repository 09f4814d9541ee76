/** One authenticated client request as the services see it, built once by the auth middleware. */

import type { Gateway } from "./gateway.ts";
import type { ClientHints } from "./providers/client_hints.ts";
import type { KeyRecord } from "./keys/key_schema.ts";
import type { RequestContext } from "./telemetry/request_context.ts";

export interface RequestScope {
  gateway: Gateway;
  /** The request's id, timing, attempts and its one log line. */
  context: RequestContext;
  /** The authenticated key. */
  key: KeyRecord;
  /** The client's signal: aborted when the client goes away. */
  signal: AbortSignal;
  /** The base URL of hosted media links: GATEWAY_PUBLIC_URL, else the request's origin. */
  publicUrl: string;
  /** Vendor headers the client sent beside the body (`anthropic-beta`, …) for upstreams to take. */
  clientHints: ClientHints;
}
