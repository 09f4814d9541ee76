/**
 * The hottest POST routes without the framework (chat completions and embeddings): the request
 * is authenticated, its body read, and served by its route's own code as the Hono route would,
 * with the same headers, errors and log record (and the key's IP allowlist checked as
 * `requireKey` checks it). Anything it does not take goes to the Hono app untouched: another
 * path or method, a query string, no credential, or a credential that does not authenticate
 * (the app answers those, counting failures for the auth throttle). Once it has a key it answers
 * every outcome itself. tests/routes/fast_path_test.ts compares its answers with the app's.
 */

import type { Gateway } from "../core/gateway.ts";
import { openAIChatInterface } from "../core/formats/openai_chat/interface.ts";
import type { KeyRecord } from "../core/keys/key_schema.ts";
import { readClientHints } from "../core/providers/client_hints.ts";
import type { RequestScope } from "../core/scope.ts";
import { limitBodyIdle } from "./body_idle.ts";
import { type AppEnv, failedRequest, newRequestContext, requestAddress } from "./middleware.ts";
import type { ProxyTrust } from "../core/util/client_address.ts";
import { checkIpAllowlist } from "../core/keys/ip_allowlist.ts";
import { readJsonBody } from "./validation.ts";

/** Serves `request` when it is one the fast path takes; else null. */
export type FastPath = (
  request: Request,
  env: AppEnv["Bindings"],
) => Promise<Response | null> | null;

/** One route the fast path serves: a POST with a JSON body and an OpenAI-style key. */
export interface FastRoute {
  path: string;
  /** The answer to the authenticated request's body, as the Hono route gives it. */
  serve(scope: RequestScope, body: Record<string, unknown>, request: Request): Promise<Response>;
}

export function fastPath(
  gateway: Gateway,
  proxyTrust: ProxyTrust,
  routes: readonly FastRoute[],
): FastPath {
  return function servedFast(request, env) {
    if (request.method !== "POST") return null;
    const route = routes.find((route) => request.url.endsWith(route.path));
    if (!route) return null;
    const url = new URL(request.url);
    if (url.pathname !== route.path || url.search !== "") return null;
    const credential = openAIChatInterface.family.readCredential({ headers: request.headers, url });
    if (!credential) return null;
    const address = () => requestAddress(request, env, proxyTrust);
    return serveAuthenticated(gateway, route, {
      request,
      url,
      secret: credential.secret,
      address,
    });
  };
}

async function serveAuthenticated(
  gateway: Gateway,
  route: FastRoute,
  { request, url, secret, address }: {
    request: Request;
    url: URL;
    secret: string;
    /** The client's address, read only for a key with an IP allowlist. */
    address: () => string;
  },
): Promise<Response | null> {
  const context = newRequestContext(gateway, openAIChatInterface.family.name, route.path);
  let key: KeyRecord;
  try {
    key = await gateway.keys.authenticate(secret);
  } catch {
    return null;
  }
  context.key = key;
  try {
    if (key.ip_allowlist) checkIpAllowlist(key, address());
    gateway.rateLimiter.take(key.id, key.rpm);
    limitBodyIdle(request, gateway.options.clientIdleMs);
    const body = await readJsonBody(request, gateway.options.maxBodyBytes);
    const response = await route.serve(
      {
        gateway,
        context,
        key,
        signal: request.signal,
        publicUrl: gateway.options.publicUrl ?? url.origin,
        clientHints: readClientHints(request.headers, url),
      },
      body,
      request,
    );
    // As the app's request-context middleware stamps it.
    if (!response.headers.has("x-request-id")) response.headers.set("x-request-id", context.id);
    return response;
  } catch (error) {
    return failedRequest(context, error);
  }
}
