/**
 * Settings → Personal access tokens in Chromium: a member makes a token with the keyboard, sees
 * the secret once with a Copy button, the token works on /v1/account, and Revoke stops it; the
 * section fits a phone's width. No page load requests another origin or logs a console error.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertCleanLoad, launchBrowser, SCREENSHOTS } from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import { startTestGateway } from "../../helpers/gateway.ts";
import { call, createAccount, PASSWORD } from "../../helpers/account_api.ts";

const chromium = await findChromium();

chromium.test("personal access tokens in Chromium: create by keyboard, copy, use, revoke; phone width", async (path) => {
  await using gw = await startTestGateway();
  await using browser = await launchBrowser(path);
  const origin = gw.url;
  const account = await createAccount(gw, { name: "Tokens" });
  const invited = await gw.admin("POST", `/admin/accounts/${account.id}/invitations`, {
    email: "tok@example.com",
    role: "owner",
  });
  const watched = await browser.newPage();
  const { page } = watched;
  await page.goto(invited.body.link);
  await page.getByLabel("Your name").fill("Tok");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Accept and set password" }).click();
  await page.getByText("Your password is set").waitFor();
  await page.goto(`${origin}/console/sign-in`);
  await page.getByLabel("Email").fill("tok@example.com");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await Promise.all([
    page.waitForURL((url) => url.pathname === "/console/account"),
    page.getByLabel("Password", { exact: true }).press("Enter"),
  ]);

  await page.getByRole("navigation").getByRole("link", { name: "Settings" }).click();
  await page.getByText("No token yet.").waitFor();
  await page.getByLabel("Token name").focus();
  await page.keyboard.type("nightly report");
  await page.keyboard.press("Tab");
  assertEquals(await page.evaluate(`document.activeElement?.id`), "expires_in_days");
  await page.keyboard.press("Tab");
  await Promise.all([
    page.waitForURL((url) => url.pathname === "/console/settings/tokens/created"),
    page.keyboard.press("Enter"),
  ]);
  const secret = ((await page.locator("#secret").textContent()) ?? "").trim();
  assertOk(/^gwpat-[0-9A-Za-z]{43}$/.test(secret), secret);
  assertOk(await page.locator('button[data-copy="secret"]').isVisible(), "a Copy button with JS");
  assertCleanLoad(watched, origin);
  assertEquals((await call(gw, secret, "GET", "/v1/account")).body.role, "owner");

  await page.goto(`${origin}/console/settings`);
  assertOk((await page.content()).includes("nightly report"));
  const phone = await browser.newPage({ width: 375 });
  await phone.page.context().addCookies(await page.context().cookies());
  await phone.page.goto(`${origin}/console/settings`);
  const overflow = await phone.page.evaluate(
    `document.documentElement.scrollWidth > document.documentElement.clientWidth`,
  );
  assertEquals(overflow, false, "no sideways scroll at phone width");
  if (SCREENSHOTS) {
    await phone.page.locator("#tokens-heading").scrollIntoViewIfNeeded();
    await phone.page.screenshot({ path: `${SCREENSHOTS}settings-tokens-phone.png` });
  }

  await page.getByRole("button", { name: "Revoke nightly report" }).click();
  await page.getByText("The token is revoked.").waitFor();
  assertEquals((await call(gw, secret, "GET", "/v1/account")).status, 401);
  assertCleanLoad(watched, origin);
});
