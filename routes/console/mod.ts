/**
 * The web console under /console (docs/console.md): server-rendered Hono JSX pages over the same
 * service calls as the admin API. Every response gets the security headers; every POST is checked
 * for its origin and CSRF token before anything runs; signed-out visitors go to the sign-in page.
 */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import { GatewayError } from "../../core/errors.ts";
import type { ConsoleEnv } from "./console_env.ts";
import { securityHeaders } from "./security_headers.ts";
import { loadSession, requireOperator, requireSession } from "./session.ts";
import { readTheme, themeRoutes } from "./theme.ts";
import { signInRoutes } from "./sign_in.tsx";
import { renderErrorPage } from "./render.tsx";
import { readMoneyFormat } from "./money.tsx";
import { accountPages } from "./pages/accounts.tsx";
import { accountDetailPages } from "./pages/account_detail.tsx";
import { groupPages } from "./pages/groups.tsx";
import { moneySettingsPages } from "./pages/money_settings.tsx";
import { batchPages } from "./pages/redemption_batches.tsx";
import { batchDetailPages } from "./pages/redemption_batch_detail.tsx";
import { keyPages } from "./pages/keys.tsx";
import { keyDetailPages } from "./pages/key_detail.tsx";
import { myKeyPages } from "./pages/my_key.tsx";
import { auditPages } from "./pages/audit.tsx";
import { channelPages } from "./pages/channels.tsx";
import { channelDetailPages } from "./pages/channel_detail.tsx";
import { channelNewPages } from "./pages/channel_new.tsx";
import { channelEditPages } from "./pages/channel_edit.tsx";
import { channelModelPages } from "./pages/channel_models.tsx";
import { modelPages } from "./pages/models.tsx";
import { modelDetailPages } from "./pages/model_detail.tsx";
import { requestPages } from "./pages/requests.tsx";
import { taskPages } from "./pages/tasks.tsx";
import { overviewPages } from "./pages/overview.tsx";
import { webhookPages } from "./pages/webhooks.tsx";
import { webhookDetailPages } from "./pages/webhook_detail.tsx";
import { secondFactorRoutes } from "./member_sign_in.tsx";
import { passwordResetPages } from "./pages/password_reset.tsx";
import { invitationPages } from "./pages/invitation.tsx";
import { signUpPages } from "./pages/sign_up.tsx";
import { memberPagesOnly, readAccountRole, requireMember } from "./member_guard.ts";
import { memberAccountPages } from "./pages/member_account.tsx";
import { memberSettingsPages } from "./pages/member_settings.tsx";
import { accountMemberPages } from "./pages/account_members.tsx";
import { memberKeyPages } from "./pages/member_keys.tsx";
import { memberKeyDetailPages } from "./pages/member_key_detail.tsx";
import { memberUsagePages } from "./pages/member_usage.tsx";
import { memberModelPages } from "./pages/member_models.tsx";
import { memberWalletPages } from "./pages/member_wallet.tsx";
import { searchPages } from "./pages/search.tsx";

/** The console sub-app. */
export function consoleRoutes(gateway: Gateway, adminTokenHash: string) {
  const app = new Hono<ConsoleEnv>();
  // "/console/*" matches "/console" itself too.
  app.use("/console/*", securityHeaders(), readTheme(), loadSession(gateway));
  app.route("/", signInRoutes(gateway, adminTokenHash));
  app.route("/", themeRoutes(gateway));
  // Pages reached without a session: the second factor, reset and invitation links, sign-up.
  app.route("/", secondFactorRoutes(gateway));
  app.route("/", passwordResetPages(gateway));
  app.route("/", invitationPages(gateway));
  app.route("/", signUpPages(gateway));
  app.use("/console/*", requireSession(), readMoneyFormat(gateway));
  app.use("/console/*", memberPagesOnly());
  app.use("/console/keys/*", requireOperator());
  const memberPaths = [
    "/console/account",
    "/console/account/*",
    "/console/members/*",
    "/console/settings/*",
  ];
  for (const path of memberPaths) {
    app.use(path, requireMember(), readAccountRole(gateway));
  }
  app.route("/", memberAccountPages(gateway));
  app.route("/", memberSettingsPages(gateway));
  app.route("/", accountMemberPages(gateway));
  app.use("/console/accounts/*", requireOperator());
  app.route("/", accountPages(gateway));
  app.route("/", accountDetailPages(gateway));
  app.route("/", memberKeyPages(gateway));
  app.route("/", memberKeyDetailPages(gateway));
  app.route("/", memberUsagePages(gateway));
  app.route("/", memberWalletPages(gateway));
  app.route("/", memberModelPages(gateway));
  app.use("/console/groups/*", requireOperator());
  app.route("/", groupPages(gateway));
  app.route("/", moneySettingsPages(gateway));
  app.use("/console/redemption-codes/*", requireOperator());
  app.route("/", batchPages(gateway));
  app.route("/", batchDetailPages(gateway));
  app.route("/", keyPages(gateway));
  app.route("/", keyDetailPages(gateway));
  app.route("/", myKeyPages(gateway));
  app.route("/", auditPages(gateway));
  app.route("/", channelPages(gateway));
  // Before the detail: /console/channels/new is no channel id.
  app.route("/", channelNewPages(gateway));
  app.route("/", channelEditPages(gateway));
  app.route("/", channelModelPages(gateway));
  app.route("/", channelDetailPages(gateway));
  app.route("/", modelPages(gateway));
  app.route("/", modelDetailPages(gateway));
  app.route("/", overviewPages(gateway));
  app.route("/", requestPages(gateway));
  app.route("/", taskPages(gateway));
  app.route("/", webhookPages(gateway));
  app.route("/", webhookDetailPages(gateway));
  app.route("/", searchPages(gateway));
  app.all("/console/*", (c) => {
    throw new GatewayError("not_found", 404, `No console page at ${c.get("url").pathname}`);
  });
  app.onError((error, c) => renderErrorPage(c, error));
  return app;
}
