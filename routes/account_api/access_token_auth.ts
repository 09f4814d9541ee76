/**
 * Authentication of the account API (/v1/account): a member's personal access token as
 * `Authorization: Bearer gwpat-…`, and nothing else — an API key or the admin token is refused
 * with 401, as is a token that is unknown, revoked or expired. Every 401 counts in the
 * failed-authentication throttle, as on the other interfaces.
 */

import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { bearerToken } from "../../core/keys/credentials.ts";
import { ACCESS_TOKEN_PREFIX } from "../../core/util/ids.ts";
import { actorOfAccessToken } from "../../core/account_area/access_token_actor.ts";
import { type AppEnv, authFailure } from "../middleware.ts";

const missingToken = () =>
  new GatewayError(
    "missing_access_token",
    401,
    "The account API needs a personal access token: send 'Authorization: Bearer gwpat-…' " +
      "(make one in the console's Settings)",
  );

const notAToken = () =>
  new GatewayError(
    "invalid_access_token",
    401,
    "The account API takes a personal access token (gwpat-…), made in the console's Settings; " +
      "API keys (sk-gw-…) and the admin token are refused here",
  );

export function requireAccessToken(gateway: Gateway): MiddlewareHandler<AppEnv> {
  return async function accessTokenAuth(c, next) {
    const secret = bearerToken(c.req.raw.headers);
    if (!secret) throw authFailure(c, missingToken());
    if (!secret.startsWith(ACCESS_TOKEN_PREFIX)) throw authFailure(c, notAToken());
    let found;
    try {
      found = await actorOfAccessToken(gateway, secret);
    } catch (error) {
      throw error instanceof GatewayError ? authFailure(c, error) : error;
    }
    c.set("actor", found.actor);
    c.set("accessTokenId", found.tokenId);
    await next();
  };
}
