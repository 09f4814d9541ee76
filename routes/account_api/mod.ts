/**
 * The account API under /v1/account (docs/accounts.md, "Account API"): what a member does in the
 * console's token management area, for scripts, with a personal access token. Every call acts
 * as the token's member in the token's account, through the token management area's service
 * (core/account_area), with the member's current role; every change is audited.
 */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import { AccountArea } from "../../core/account_area/account_area.ts";
import type { AppEnv } from "../middleware.ts";
import { requireAccessToken } from "./access_token_auth.ts";
import { auditAccountChanges } from "./audit.ts";
import { accountReadRoutes } from "./reads.ts";
import { accountKeyRoutes } from "./keys.ts";
import { accountRedeemRoutes } from "./redeem.ts";

export function accountApiRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const area = new AccountArea(gateway);
  // "/v1/account/*" matches "/v1/account" itself too.
  app.use("/v1/account/*", requireAccessToken(gateway), auditAccountChanges(gateway, area));
  app.route("/", accountReadRoutes(area));
  app.route("/", accountKeyRoutes(area));
  app.route("/", accountRedeemRoutes(area));
  return app;
}
