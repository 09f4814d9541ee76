/**
 * The Overview and a key's activity in a real browser (Chromium, driven by playwright-core): both
 * load with no console error and no request to another origin, in light and dark; a top model's
 * link opens the requests list filtered by it; a key's "All requests" opens the list filtered by
 * the key; at phone width nothing is wider than the screen. Screenshots of the Overview (light
 * and dark) are taken; with GATEWAY_SCREENSHOTS=1 they are written to docs/screenshots/.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertCleanLoad, launchBrowser, SCREENSHOTS } from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const chromium = await findChromium();
const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

chromium.test(
  "console in Chromium: the Overview and a key's activity load clean in light and dark; their links open the filtered lists; screenshots",
  async (path) => {
    await using s = await setupChat();
    for (let i = 0; i < 3; i++) {
      const answer = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
      await answer.body?.cancel();
      assertEquals(answer.status, 200);
    }
    await s.gw.settle();
    await using browser = await launchBrowser(path);
    const folder = SCREENSHOTS ?? await Deno.makeTempDir({ prefix: "console-shots-" });
    try {
      for (const scheme of ["light", "dark"] as const) {
        const watched = await browser.newPage({ colorScheme: scheme });
        const { page } = watched;
        await page.goto(`${s.gw.url}/console`);
        await page.getByLabel("Token", { exact: true }).fill(ADMIN_TOKEN);
        await page.getByRole("button", { name: "Sign in", exact: true }).click();
        await page.waitForURL((url) => url.pathname === "/console");
        assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Overview");
        assertEquals(await page.getByRole("img", { name: /per day, 30 days/ }).count(), 2);
        const background = await page.evaluate(`getComputedStyle(document.body).backgroundColor`);
        assertEquals(background, scheme === "dark" ? "rgb(18, 20, 23)" : "rgb(247, 247, 248)");
        await page.screenshot({ path: `${folder}/overview-${scheme}.png`, fullPage: true });
        assertCleanLoad(watched, s.gw.url);

        await page.getByRole("table", { name: "Top models" }).getByRole("link", { name: MODEL })
          .click();
        await page.waitForURL((url) => url.pathname === "/console/requests");
        assertEquals(new URL(page.url()).searchParams.get("model"), MODEL);

        await page.goto(`${s.gw.url}/console/keys/${s.keyId}?tab=usage`);
        assertEquals(await page.getByRole("img", { name: /Requests per day/ }).count(), 1);
        const rows = page.getByRole("table", { name: "Per day" }).locator("tbody tr");
        assertEquals(await rows.count(), 1);
        assertOk(((await rows.textContent()) ?? "").includes("3"), "three requests today");
        await page.getByRole("link", { name: "All requests of this key" }).click();
        await page.waitForURL((url) => url.pathname === "/console/requests");
        assertEquals(new URL(page.url()).searchParams.get("key"), s.keyId);
        assertCleanLoad(watched, s.gw.url);
      }
      // At phone width the page folds: nothing wider than the screen but the scrolling tables.
      const phone = await browser.newPage({ width: 390 });
      await phone.page.goto(`${s.gw.url}/console`);
      await phone.page.getByLabel("Token", { exact: true }).fill(ADMIN_TOKEN);
      await phone.page.getByRole("button", { name: "Sign in", exact: true }).click();
      await phone.page.waitForURL((url) => url.pathname === "/console");
      assertEquals(await phone.page.evaluate(`document.documentElement.scrollWidth`), 390);
      assertCleanLoad(phone, s.gw.url);
    } finally {
      if (!SCREENSHOTS) await Deno.remove(folder, { recursive: true });
    }
  },
  serverTest,
);

chromium.reportIgnored("tests/e2e/console/browser_overview_test.ts");
