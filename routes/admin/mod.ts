/**
 * The admin JSON API under /admin (design.md §1), Bearer GATEWAY_ADMIN_TOKEN. One file per area;
 * this one checks the token and mounts them.
 */

import { Hono } from "hono";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { isAdminToken } from "../../core/keys/admin_token.ts";
import { type AppEnv, authFailure } from "../middleware.ts";
import { adminChannelRoutes } from "./channels.ts";
import { adminKeyRoutes } from "./keys.ts";
import { adminAccountRoutes } from "./accounts.ts";
import { adminModelRoutes } from "./models.ts";
import { adminTaskRoutes } from "./tasks.ts";
import { adminLedgerRoutes } from "./ledger.ts";
import { adminCaptureRoutes } from "./captures.ts";
import { adminAuditRoutes } from "./audit.ts";
import { auditAdminChanges } from "./audit_changes.ts";
import { adminRequestRoutes } from "./requests.ts";
import { adminUsageRoutes } from "./usage.ts";
import { adminWebhookRoutes } from "./webhooks.ts";
import { adminMemberRoutes } from "./members.ts";
import { adminRedemptionRoutes } from "./redemption_codes.ts";
import { adminGroupRoutes } from "./groups.ts";
import { adminSettingsRoutes } from "./settings.ts";

/** The admin sub-app. */
export function adminRoutes(gateway: Gateway, adminTokenHash: string) {
  const app = new Hono<AppEnv>();

  app.use("/admin/*", async function adminAuth(c, next) {
    const token = c.req.header("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!token || !(await isAdminToken(token, adminTokenHash))) {
      throw authFailure(
        c,
        new GatewayError(
          "invalid_admin_token",
          401,
          "Admin endpoints need 'Authorization: Bearer <GATEWAY_ADMIN_TOKEN>'",
        ),
      );
    }
    await next();
  });
  app.use("/admin/*", auditAdminChanges(gateway));

  app.route("/", adminAccountRoutes(gateway));
  app.route("/", adminKeyRoutes(gateway));
  app.route("/", adminChannelRoutes(gateway));
  app.route("/", adminModelRoutes(gateway));
  app.route("/", adminTaskRoutes(gateway));
  app.route("/", adminLedgerRoutes(gateway));
  app.route("/", adminCaptureRoutes(gateway));
  app.route("/", adminAuditRoutes(gateway));
  app.route("/", adminRequestRoutes(gateway));
  app.route("/", adminUsageRoutes(gateway));
  app.route("/", adminWebhookRoutes(gateway));
  app.route("/", adminMemberRoutes(gateway));
  app.route("/", adminRedemptionRoutes(gateway));
  app.route("/", adminGroupRoutes(gateway));
  app.route("/", adminSettingsRoutes(gateway));
  return app;
}
