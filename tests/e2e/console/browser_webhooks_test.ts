/**
 * The Webhooks pages in a real browser (Chromium, driven by playwright-core): New endpoint from
 * the list, the secret shown once, Send test delivered and verified as a receiver would, and the
 * list and endpoint pages loading in light and dark with no console error and no request to
 * another origin.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertCleanLoad, launchBrowser, SCREENSHOTS, signIn } from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { startWebhookReceiver } from "../../helpers/webhook_receiver.ts";
import { setupWebhookImages, verified } from "../../helpers/webhook_setup.ts";

const chromium = await findChromium();

chromium.test(
  "console in Chromium: New endpoint, its secret once, Send test; Webhooks pages load cleanly in light and dark",
  async (path) => {
    await using s = await setupWebhookImages();
    await using receiver = startWebhookReceiver();
    await using browser = await launchBrowser(path);
    const watched = await browser.newPage();
    const { page } = watched;
    await signIn(watched, { origin: s.gw.url, token: ADMIN_TOKEN });

    await page.goto(`${s.gw.url}/console/webhooks`);
    await page.getByRole("link", { name: "New endpoint" }).click();
    await page.waitForURL(/\/console\/webhooks\/new$/);
    await page.getByLabel("URL", { exact: true }).fill(receiver.url);
    await page.getByLabel("Description", { exact: true }).fill("video results");
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(/\/console\/webhooks\/[^/]+\/secret$/);
    const secret = (await page.locator("#secret").textContent()) ?? "";
    assertOk(secret.startsWith("whsec_"), secret);
    await page.getByRole("link", { name: "Go to the endpoint" }).click();
    await page.waitForURL(/\/console\/webhooks\/[^/]+$/);
    await page.getByRole("button", { name: "Send test" }).click();
    assertEquals(await page.getByRole("status").locator("dd").first().textContent(), "delivered");
    const [ping] = await receiver.waitFor(1);
    assertEquals(verified(secret, ping).type, "webhook.test");
    const endpointPath = new URL(page.url()).pathname.replace(/\/test$/, "");
    assertCleanLoad(watched, s.gw.url);

    for (const scheme of ["light", "dark"] as const) {
      const themed = await browser.newPage({ colorScheme: scheme, width: 390 });
      await signIn(themed, { origin: s.gw.url, token: ADMIN_TOKEN });
      for (const pagePath of ["/console/webhooks", endpointPath]) {
        const response = await themed.page.goto(`${s.gw.url}${pagePath}`);
        assertEquals(response?.status(), 200, pagePath);
        assertOk(await themed.page.getByText("Copy as curl").first().isVisible(), pagePath);
        await themed.page.screenshot({
          path: `${SCREENSHOTS ?? await Deno.makeTempDir()}/${
            pagePath === "/console/webhooks" ? "webhooks" : "webhook"
          }-${scheme}.png`,
          fullPage: true,
        });
      }
      assertCleanLoad(themed, s.gw.url);
    }
  },
  serverTest,
);

chromium.reportIgnored("tests/e2e/console/browser_webhooks_test.ts");
