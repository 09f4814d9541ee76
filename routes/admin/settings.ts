/** Admin routes for operator settings: the console's money format (currency, display precision). */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import { moneyFormatPatchSchema } from "../../core/console/money_format.ts";
import type { AppEnv } from "../middleware.ts";
import { jsonAnswer, serveRoute } from "../openapi/declare_route.ts";
import { validate } from "../validation.ts";
import { adminBody, adminRoute } from "./shared.ts";

const readMoney = adminRoute({
  method: "get",
  path: "/admin/settings/money",
  summary: "The console's money format: currency (ISO 4217) and display precision (2-6 decimals)",
  answers: { "200": jsonAnswer("the money format, and whether it is set or the defaults") },
});

const patchMoney = adminRoute({
  method: "patch",
  path: "/admin/settings/money",
  summary: "Change the console's money format; a display setting: stored money never changes",
  body: { name: "MoneyFormatPatch", schema: moneyFormatPatchSchema },
  answers: { "200": jsonAnswer("the money format") },
});

export function adminSettingsRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, readMoney, async (c) => c.json(await gateway.moneyFormat.get()));
  serveRoute(app, patchMoney, async (c) => {
    const patch = validate(moneyFormatPatchSchema, await adminBody(c.req.raw));
    return c.json(await gateway.moneyFormat.patch(patch));
  });
  return app;
}
