/** Middleware shared by the client routes: request context, errors, and key authentication. */

import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { ClientInterface, PresentedCredential } from "../core/keys/credentials.ts";
import {
  familyNamed,
  interfaceName,
  interfaceOfRequest,
  readAnyCredential,
  readCredential,
} from "../core/formats/interfaces.ts";
import { GatewayError, toGatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { timeOrderedId } from "../core/util/ids.ts";
import type { KeyRecord } from "../core/keys/key_schema.ts";
import { RequestContext } from "../core/telemetry/request_context.ts";
import { limitBodyIdle } from "./body_idle.ts";
import type { RequestScope } from "../core/scope.ts";
import { readClientHints } from "../core/providers/client_hints.ts";
import { errorResponse } from "./error_envelopes.ts";
import type { AuthThrottle } from "../core/keys/auth_throttle.ts";
import { clientAddress, NO_PROXY, type ProxyTrust } from "../core/util/client_address.ts";
import { checkIpAllowlist } from "../core/keys/ip_allowlist.ts";
import { checkPathParams } from "./params.ts";
import type { AccountActor } from "../core/account_area/actor.ts";

export type AppEnv = {
  /** What Deno.serve passes beside the request (absent when the app is called directly). */
  Bindings: { remoteAddr?: Deno.Addr; completed?: Promise<void> } | undefined;
  Variables: {
    /** The client's address (the peer, or x-forwarded-for behind a trusted proxy). */
    clientAddress: string;
    /** Counts failed authentications per client address (see core/keys/auth_throttle.ts). */
    authThrottle?: AuthThrottle;
    context: RequestContext;
    key: KeyRecord;
    credential: PresentedCredential;
    /** The authenticated request as services take it (set by `requireKey`). */
    scope: RequestScope;
    /** The parsed request URL, parsed once per request. */
    url: URL;
    /** The member and account of a personal access token (set by `requireAccessToken`). */
    actor: AccountActor;
    /** The id of that token, for the audit trail. */
    accessTokenId: string;
  };
};

/**
 * Route label for logs and metrics: the template of the route that matched (`/v1/video/
 * generations/:task_id`), never the raw path, so what clients send cannot grow the label set;
 * every path no route serves shares `unmatched`.
 */
function routeLabel(c: Context<AppEnv>): string {
  const template = routePath(c, -1);
  return !template || template === "*" || template.endsWith("/*") ? "unmatched" : template;
}

const UNLOGGED = new Set(["/", "/healthz", "/readyz", "/metrics", "/openapi.json"]);

function isUnlogged(path: string): boolean {
  return UNLOGGED.has(path) || path.startsWith("/admin") || path.startsWith("/media/") ||
    path === "/v1/me" || path.startsWith("/v1/me/") || path === "/v1/account" ||
    path.startsWith("/v1/account/") || path === "/console" ||
    path.startsWith("/console/");
}

/** How the app tells clients apart, for the auth throttle, the audit log and IP allowlists. */
export interface ClientOptions {
  authThrottle?: AuthThrottle;
  /** Proxies whose `x-forwarded-for` is believed (core/util/client_address.ts). */
  proxyTrust: ProxyTrust;
}

/** The client address of `request`, from what Deno.serve passed beside it (`env`). */
export function requestAddress(
  request: Request,
  env: AppEnv["Bindings"],
  trust: ProxyTrust,
): string {
  const addr = env?.remoteAddr;
  return clientAddress({
    peer: addr && "hostname" in addr ? addr.hostname : undefined,
    forwardedFor: request.headers.get("x-forwarded-for"),
  }, trust);
}

/** A request's context, its record named by the table of interfaces once the route is known. */
export function newRequestContext(
  gateway: Gateway,
  clientInterface: ClientInterface,
  route = "unmatched",
): RequestContext {
  return new RequestContext({
    id: timeOrderedId("req"),
    interface: clientInterface,
    route,
    nameOf: (matched) => interfaceName(clientInterface, matched),
  }, gateway);
}

/**
 * Opens a RequestContext for every request, stamps `x-request-id` on every answer, and logs the
 * request unless its route logs it later itself (streams log when they end). Checks the matched
 * route's path parameters before any handler reads them.
 */
export function requestContext(
  gateway: Gateway,
  client: ClientOptions = { proxyTrust: NO_PROXY },
): MiddlewareHandler<AppEnv> {
  return async function requestContextMiddleware(c, next) {
    const url = new URL(c.req.url);
    c.set("url", url);
    c.set("clientAddress", requestAddress(c.req.raw, c.env, client.proxyTrust));
    if (client.authThrottle) c.set("authThrottle", client.authThrottle);
    // Every body read (JSON, multipart) fails with 408 once the client stalls too long.
    if (c.req.raw.body) limitBodyIdle(c.req.raw, gateway.options.clientIdleMs);
    const clientInterface = interfaceOfRequest(url.pathname, { headers: c.req.raw.headers, url });
    const context = newRequestContext(gateway, clientInterface);
    c.set("context", context);
    checkPathParams(c, url.pathname);
    await next();
    context.route = routeLabel(c);
    context.ignoredFields = c.res.headers.get("x-gateway-ignored-fields")?.split(",") ?? [];
    if (!context.logsLater && !isUnlogged(url.pathname)) {
      context.finish({ status: c.res.status });
    }
    c.res.headers.set("x-request-id", context.id);
    const idHeader = familyNamed(clientInterface).requestIdHeader;
    if (idHeader) c.res.headers.set(idHeader, context.id);
  };
}

/** Renders any error in the interface's envelope and logs the failed request. */
export function renderError(
  gateway: Gateway,
  { error, c }: { error: unknown; c: Context<AppEnv> },
): Response {
  let context = c.get("context");
  if (!context) {
    const url = new URL(c.req.url);
    context = newRequestContext(
      gateway,
      interfaceOfRequest(url.pathname, { headers: c.req.raw.headers, url }),
    );
  }
  context.route = routeLabel(c);
  return failedRequest(context, error);
}

/** The error answer of the request in `context`, in its envelope; logs the failed request. */
export function failedRequest(context: RequestContext, error: unknown): Response {
  const gatewayError = toGatewayError(error);
  if (!(error instanceof GatewayError)) {
    console.error(JSON.stringify({
      msg: "unhandled error",
      request_id: context.id,
      error: error instanceof Error ? error.stack : String(error),
    }));
  }
  const response = errorResponse(context.interface, { error: gatewayError, requestId: context.id });
  // The status the client got: an envelope may answer in its own (Anthropic's 529 for a 502,
  // Google's 503 UNAVAILABLE).
  context.finish({ status: response.status, errorCode: gatewayError.code });
  return response;
}

/**
 * What to answer for a failed authentication (a 401): the error itself, or a 429 once the
 * client's address has failed too often. Valid credentials never reach this.
 */
export function authFailure(c: Context<AppEnv>, error: GatewayError): GatewayError {
  const throttle = c.get("authThrottle");
  if (!throttle || error.status !== 401) return error;
  return throttle.failed(c.get("clientAddress") ?? "unknown", error);
}

/**
 * Authenticates the caller's key for `clientInterface` (or the one the path implies); `any`
 * takes every interface's credential forms.
 */
export function requireKey(
  gateway: Gateway,
  clientInterface?: ClientInterface | "any",
): MiddlewareHandler<AppEnv> {
  return async function requireKeyMiddleware(c, next) {
    const context = c.get("context");
    const url = c.get("url") ?? new URL(c.req.url);
    const request = { headers: c.req.raw.headers, url };
    const credential = clientInterface === "any"
      ? readAnyCredential(request)
      : readCredential(clientInterface ?? context.interface, request);
    if (!credential) {
      throw authFailure(
        c,
        new GatewayError(
          "missing_api_key",
          401,
          clientInterface === "any"
            ? "No API key given; send it as 'Authorization: Bearer <key>', in the x-api-key " +
              "or x-goog-api-key header, or as the ?key= query parameter"
            : familyNamed(context.interface).missingCredential,
        ),
      );
    }
    let key: KeyRecord;
    try {
      key = await gateway.keys.authenticate(credential.secret);
    } catch (error) {
      throw error instanceof GatewayError ? authFailure(c, error) : error;
    }
    context.key = key;
    checkIpAllowlist(key, c.get("clientAddress") ?? "unknown");
    gateway.rateLimiter.take(key.id, key.rpm);
    c.set("key", key);
    c.set("credential", credential);
    c.set("scope", {
      gateway,
      context,
      key,
      signal: c.req.raw.signal,
      publicUrl: gateway.options.publicUrl ?? url.origin,
      clientHints: readClientHints(c.req.raw.headers, url),
    });
    await next();
  };
}
