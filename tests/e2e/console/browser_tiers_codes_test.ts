/**
 * The Groups and Redemption codes pages in a real browser (Chromium, driven by playwright-core):
 * a batch made with the keyboard only, its codes shown once (Copy all puts them on the clipboard,
 * Download as text saves them; the reload has none); the groups list, the batches list and a
 * batch's page loading in light and dark with no console error and no request to another origin.
 * Screenshots (groups-*.png, redemption-codes-*.png) go to docs/screenshots/ with
 * GATEWAY_SCREENSHOTS=1.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  assertCleanLoad,
  launchBrowser,
  SCREENSHOTS,
  signIn,
  type WatchedPage,
} from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";

const chromium = await findChromium();

/** Presses Tab until the focused element passes `test`, a script over `document.activeElement`. */
async function tabUntil({ page }: WatchedPage, test: string) {
  for (let tabs = 0; tabs < 40; tabs++) {
    if (
      await page.evaluate(`(() => { const focused = document.activeElement; return ${test}; })()`)
    ) {
      return;
    }
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached an element where ${test}`);
}

chromium.test(
  "console in Chromium: a batch made with the keyboard only, its codes shown once (Copy all, Download as text); Groups and Redemption codes load cleanly in light and dark",
  async (path) => {
    await using gw = await startTestGateway();
    await using browser = await launchBrowser(path);
    const origin = gw.url;
    for (
      const [name, multiplier, description] of [["vip", 0.8, "good customers"], [
        "reseller",
        0.6,
        "resellers",
      ]] as const
    ) {
      const put = await gw.admin("PUT", `/admin/groups/${name}`, {
        price_multiplier: multiplier,
        description,
      });
      assertEquals(put.status, 200);
    }
    for (const [name, group] of [["Acme", "vip"], ["Bolt", "vip"], ["Cargo", "reseller"]]) {
      assertEquals((await gw.admin("POST", "/admin/accounts", { name, group })).status, 201);
    }

    const watched = await browser.newPage();
    const { page } = watched;
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    await signIn(watched, { origin, token: ADMIN_TOKEN });

    await page.goto(`${origin}/console/redemption-codes`);
    assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Redemption codes");
    await tabUntil(watched, `focused?.textContent === "New batch"`);
    await Promise.all([
      page.waitForURL(/\/console\/redemption-codes\/new$/),
      page.keyboard.press("Enter"),
    ]);
    await tabUntil(watched, `focused?.id === "name"`);
    await page.keyboard.type("keyboard batch");
    await page.keyboard.press("Tab");
    assertEquals(await page.evaluate(`document.activeElement?.id`), "amount");
    await page.keyboard.type("5");
    await page.keyboard.press("Tab");
    assertEquals(await page.evaluate(`document.activeElement?.id`), "count");
    await page.keyboard.type("4");
    await Promise.all([
      page.waitForURL(/\/console\/redemption-codes\/rb_\w+\/created$/),
      page.keyboard.press("Enter"),
    ]);
    const batchId = new URL(page.url()).pathname.split("/")[3];
    const text = (await page.locator("#codes").textContent()) ?? "";
    const codes = text.trim().split("\n");
    assertEquals(codes.length, 4);
    for (const code of codes) assertOk(/^gwr-[0-9A-Za-z]{24}$/.test(code), code);
    const batch = (await gw.admin("GET", `/admin/redemption-batches/${batchId}`)).body;
    assertEquals([batch.name, batch.amount, batch.count], ["keyboard batch", 5_000_000, 4]);

    await page.screenshot({
      path: `${SCREENSHOTS ?? await Deno.makeTempDir()}/redemption-codes-shown-once-light.png`,
      fullPage: true,
    });
    const copyAll = page.getByRole("button", { name: "Copy all" });
    assertOk(await copyAll.isVisible(), "Copy all with JS");
    await copyAll.click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    assertEquals(await page.evaluate("navigator.clipboard.readText()"), text);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download as text" }).click(),
    ]);
    assertEquals(download.suggestedFilename(), `${batchId}-codes.txt`);
    assertEquals(await Deno.readTextFile(await download.path()), codes.join("\n") + "\n");

    await page.reload();
    assertEquals(await page.locator("#codes").count(), 0, "the codes are gone on reload");
    assertOk((await page.content()).includes("cannot be shown again"));
    assertEquals((await page.content()).match(/gwr-[0-9A-Za-z]{24}/), null);
    await page.getByRole("link", { name: "Go to the batch" }).click();
    await page.waitForURL((url) => url.pathname === `/console/redemption-codes/${batchId}`);
    assertEquals(await page.locator("tbody tr[id^=rc_]").count(), 4);
    assertCleanLoad(watched, origin);

    const batchPath = `/console/redemption-codes/${batchId}`;
    for (const scheme of ["light", "dark"] as const) {
      const themed = await browser.newPage({ colorScheme: scheme });
      await signIn(themed, { origin, token: ADMIN_TOKEN });
      const shots: Array<[string, string]> = [
        ["/console/groups", "groups"],
        ["/console/redemption-codes", "redemption-codes"],
        [batchPath, "redemption-codes-batch"],
      ];
      for (const [pagePath, name] of shots) {
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

chromium.reportIgnored("tests/e2e/console/browser_tiers_codes_test.ts");
