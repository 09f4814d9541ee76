/** POST /v1/account/redeem: a member (owner or not) redeems a code into the account's wallet. */

import { Hono } from "hono";
import { z } from "zod";
import type { AccountArea } from "../../core/account_area/account_area.ts";
import type { AppEnv } from "../middleware.ts";
import { jsonAnswer, serveRoute } from "../openapi/declare_route.ts";
import { validate } from "../validation.ts";
import { accountBody, accountRoute } from "./account_route.ts";

export const redeemInputSchema = z.strictObject({ code: z.string().trim().min(1).max(200) });

const redeemCode = accountRoute({
  method: "post",
  path: "/v1/account/redeem",
  summary: "Redeem a code: its amount is credited to the account's wallet, once. Refused: 404 " +
    "code_not_found, 409 code_redeemed or code_disabled, 410 code_expired, 403 " +
    "code_not_for_group, 429 after too many refusals",
  body: { name: "AccountRedeem", schema: redeemInputSchema },
  answers: {
    "200": jsonAnswer(
      "`{code_id, amount, balance, ledger_entry_id}`: the credit and the new balance",
    ),
  },
});

export function accountRedeemRoutes(area: AccountArea) {
  const app = new Hono<AppEnv>();
  serveRoute(app, redeemCode, async (c) => {
    const input = validate(redeemInputSchema, await accountBody(c.req.raw));
    return c.json(await area.redeem(c.get("actor"), input.code));
  });
  return app;
}
