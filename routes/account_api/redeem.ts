/** POST /v1/account/redeem: a member (owner or not) redeems a code into the account's wallet. */

import { Hono } from "hono";
import { z } from "zod";
import { GatewayError } from "../../core/errors.ts";
import type { AppEnv } from "../middleware.ts";
import { jsonAnswer, serveRoute } from "../openapi/declare_route.ts";
import { validate } from "../validation.ts";
import { accountBody, accountRoute } from "./account_route.ts";

export const redeemInputSchema = z.strictObject({ code: z.string().trim().min(1).max(200) });

const redeemCode = accountRoute({
  method: "post",
  path: "/v1/account/redeem",
  summary: "Redeem a code: its amount is credited to the account's wallet, once",
  body: { name: "AccountRedeem", schema: redeemInputSchema },
  answers: { "200": jsonAnswer("the credit and the wallet's new balance") },
});

export function accountRedeemRoutes() {
  const app = new Hono<AppEnv>();
  serveRoute(app, redeemCode, async (c) => {
    validate(redeemInputSchema, await accountBody(c.req.raw));
    // TODO(lead): wire redemption codes once branch r-codes is merged: through AccountArea (a
    // `redeem(actor, code)` that calls core/accounts/redemption_codes.ts `redeem(code,
    // {accountId, walletId, group})` with the actor's account) and answer 200 with the credit.
    throw new GatewayError(
      "not_implemented",
      501,
      "Redeeming codes by API is not available on this gateway yet; redeem in the console",
    );
  });
  return app;
}
