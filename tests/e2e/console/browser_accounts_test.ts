/**
 * The Accounts pages in a real browser (Chromium, driven by playwright-core): New account from
 * the list, Add credit, Suspend only once its box is ticked (the account's key then refused),
 * Resume; the list and an account's page loading in light and dark with no console error and no
 * request to another origin. Screenshots (accounts-*.png, account-*.png) go to docs/screenshots/
 * with GATEWAY_SCREENSHOTS=1.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertCleanLoad, launchBrowser, SCREENSHOTS, signIn } from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const chromium = await findChromium();
const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

chromium.test(
  "console in Chromium: New account, Add credit, Suspend needs its box, Resume; Accounts pages load cleanly in light and dark",
  async (path) => {
    await using s = await setupChat();
    await using browser = await launchBrowser(path);
    const origin = s.gw.url;
    const watched = await browser.newPage();
    const { page } = watched;
    await signIn(watched, { origin, token: ADMIN_TOKEN });

    await page.goto(`${origin}/console/accounts`);
    assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Accounts");
    await page.getByRole("link", { name: "New account" }).click();
    await page.waitForURL(/\/console\/accounts\/new$/);
    await page.getByLabel("Name", { exact: true }).fill("Acme");
    await page.getByLabel("Opening balance (USD)").fill("2");
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(/\/console\/accounts\/acct_\w+$/);
    const accountPath = new URL(page.url()).pathname;
    const accountId = accountPath.split("/").pop()!;
    assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Account Acme");

    const key = (await s.gw.admin("POST", "/admin/keys", { name: "web", account_id: accountId }))
      .body;
    const used = await postJson(s.gw, "/v1/chat/completions", key.key, ask);
    await used.body?.cancel();
    assertEquals(used.status, 200);

    const tabs = page.getByRole("navigation", { name: "Sections of this page" });
    await tabs.getByRole("link", { name: "Wallet and ledger" }).click();
    await page.waitForURL((url) => url.searchParams.get("tab") === "wallet");
    await page.getByLabel("Amount (USD)").fill("0.5");
    await page.getByLabel("Note").fill("browser top-up");
    await page.getByRole("button", { name: "Add credit" }).click();
    // The form posts from the wallet tab and comes back to it: wait for the new entry.
    await page.getByRole("cell", { name: /browser top-up/ }).waitFor();
    assertEquals(new URL(page.url()).pathname, accountPath);
    assertEquals(new URL(page.url()).searchParams.get("tab"), "wallet", "back on its tab");
    const check = await page.locator("p.ok").textContent();
    assertOk(check?.startsWith("Σ entries = balance ✓"), `the ledger check: ${check}`);
    await tabs.getByRole("link", { name: "Account", exact: true }).click();
    await page.waitForURL((url) => url.search === "");

    // The box is required: the browser does not send the form until it is ticked.
    await page.getByRole("button", { name: "Suspend" }).click();
    assertEquals(new URL(page.url()).pathname, accountPath);
    assertEquals((await s.gw.admin("GET", `/admin/accounts/${accountId}`)).body.enabled, true);
    await page.getByLabel(/Suspend this account/).check();
    await page.getByRole("button", { name: "Suspend" }).click();
    await page.getByRole("button", { name: "Resume" }).waitFor();
    const refused = await postJson(s.gw, "/v1/chat/completions", key.key, ask);
    assertEquals([refused.status, (await refused.json()).error.code], [403, "account_disabled"]);
    await page.getByRole("button", { name: "Resume" }).click();
    await page.getByRole("button", { name: "Suspend" }).waitFor();
    const back = await postJson(s.gw, "/v1/chat/completions", key.key, ask);
    await back.body?.cancel();
    assertEquals(back.status, 200);
    assertCleanLoad(watched, origin);

    for (const scheme of ["light", "dark"] as const) {
      const themed = await browser.newPage({ colorScheme: scheme });
      await signIn(themed, { origin, token: ADMIN_TOKEN });
      for (
        const [pagePath, name] of [["/console/accounts", "accounts"], [accountPath, "account"]]
      ) {
        const response = await themed.page.goto(`${origin}${pagePath}`);
        assertEquals(response?.status(), 200, pagePath);
        assertOk(await themed.page.getByText("Copy as curl").first().isVisible(), pagePath);
        await themed.page.screenshot({
          path: `${SCREENSHOTS ?? await Deno.makeTempDir()}/${name}-${scheme}.png`,
          fullPage: true,
        });
      }
      assertCleanLoad(themed, origin);
    }
  },
  serverTest,
);

chromium.reportIgnored("tests/e2e/console/browser_accounts_test.ts");
