/**
 * The model pages in a real browser (Chromium, driven by playwright-core): a model added and
 * re-priced with the keyboard only, its price typed in currency (only the chosen kind's fields
 * shown, by the stylesheet); the warning that no enabled channel serves it appears, clears when a
 * channel lists it, and comes back when that channel is disabled from its page; no console error,
 * no request to another origin; at 390 px no horizontal page scroll. Screenshots (model-*.png) go
 * to docs/screenshots/ with GATEWAY_SCREENSHOTS=1.
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
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const chromium = await findChromium();
const WARNING = "no enabled channel serves it";

/** Presses Tab until the focused element passes `test`, a script over `document.activeElement`. */
async function tabUntil({ page }: WatchedPage, test: string) {
  for (let tabs = 0; tabs < 80; tabs++) {
    if (
      await page.evaluate(`(() => { const focused = document.activeElement; return ${test}; })()`)
    ) {
      return;
    }
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached an element where ${test}`);
}

const focusedId = (watched: WatchedPage) => watched.page.evaluate(`document.activeElement?.id`);

async function shot(watched: WatchedPage, name: string) {
  await watched.page.screenshot({
    path: `${SCREENSHOTS ?? await Deno.makeTempDir()}/${name}.png`,
    fullPage: true,
  });
}

chromium.test(
  "console in Chromium: a model added and priced by keyboard in currency; the unserved warning appears, clears and comes back; no console errors",
  async (path) => {
    await using s = await setupChat();
    await using browser = await launchBrowser(path);
    const origin = s.gw.url;
    const watched = await browser.newPage();
    const { page } = watched;
    await signIn(watched, { origin, token: ADMIN_TOKEN });

    await page.goto(`${origin}/console/models`);
    await tabUntil(watched, `focused?.tagName === "SUMMARY"`);
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    assertEquals(await focusedId(watched), "add-id");
    await page.keyboard.type("gpt-keys");
    await tabUntil(watched, `focused?.id === "kind-text"`);
    // Only the chosen kind's price fields are there: Tab goes from text's to the next control.
    assertOk(await page.locator("#text-input").isVisible());
    assertOk(!(await page.locator("#image-per_image").isVisible()), "image fields hidden");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    assertEquals(await focusedId(watched), "kind-video");
    assertOk(await page.locator("#video-per_second").isVisible(), "video fields shown");
    assertOk(!(await page.locator("#video-per_task").isVisible()), "the other plan hidden");
    assertOk(!(await page.locator("#text-input").isVisible()), "text fields hidden");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    assertEquals(await focusedId(watched), "kind-text");
    await page.keyboard.press("Tab");
    assertEquals(await focusedId(watched), "text-input");
    await page.keyboard.type("0.15");
    await page.keyboard.press("Tab");
    assertEquals(await focusedId(watched), "text-cached_input");
    await page.keyboard.press("Tab");
    assertEquals(await focusedId(watched), "text-output");
    await page.keyboard.type("0.60");
    await Promise.all([
      page.waitForURL(/\/console\/models\/gpt-keys$/),
      page.keyboard.press("Enter"),
    ]);
    assertEquals((await s.gw.admin("GET", "/admin/models/gpt-keys")).body.price, {
      input: 150_000,
      output: 600_000,
    });
    const warning = page.locator(".badge.warn");
    assertOk(await warning.first().isVisible(), "the warning on a new unserved model");
    assertOk((await warning.first().textContent())?.includes(WARNING));
    await shot(watched, "model-unserved-light");

    // Re-price by keyboard: the price form's input field, then Enter.
    await page.locator("#text-input").focus();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("0.2");
    await Promise.all([
      page.waitForResponse((response) =>
        response.url().endsWith("/console/models/gpt-keys") &&
        response.request().method() === "GET"
      ),
      page.keyboard.press("Enter"),
    ]);
    await page.waitForLoadState();
    assertEquals((await s.gw.admin("GET", "/admin/models/gpt-keys")).body.price.input, 200_000);
    await page.getByText("input $0.200000", { exact: false }).first().waitFor();

    // A channel lists it: the warning clears, the channel is named and linked.
    const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, { models: [MODEL, "gpt-keys"] });
    await page.reload();
    assertEquals(await page.locator(".badge.warn").count(), 0, "the warning cleared");
    await shot(watched, "model-detail-light");

    // Disabled from its own page, the channel serves no more: the warning is back.
    await Promise.all([
      page.waitForURL(/\/console\/channels\/[^/]+$/),
      page.getByRole("link", { name: "primary", exact: true }).click(),
    ]);
    await page.getByRole("button", { name: "Disable" }).click();
    await page.getByRole("button", { name: "Enable" }).waitFor();
    await page.goto(`${origin}/console/models/gpt-keys`);
    assertOk(await page.locator(".badge.warn").first().isVisible(), "the warning is back");
    await page.getByText("(disabled)").first().waitFor();
    assertCleanLoad(watched, origin);

    for (const scheme of ["light", "dark"] as const) {
      const phone = await browser.newPage({ colorScheme: scheme, width: 390 });
      await signIn(phone, { origin, token: ADMIN_TOKEN });
      for (
        const [pagePath, name] of [
          ["/console/models", "model-list"],
          ["/console/models/gpt-keys", "model-detail"],
          ["/console/models?coverage=uncovered", "model-unserved"],
          ["/console", "model-overview"],
        ]
      ) {
        const response = await phone.page.goto(`${origin}${pagePath}`);
        assertEquals(response?.status(), 200, pagePath);
        if (pagePath === "/console/models") await phone.page.locator("summary").first().click();
        assertOk(
          await phone.page.evaluate(`document.documentElement.scrollWidth <= window.innerWidth`),
          `${pagePath} scrolls sideways at 390 px (${scheme})`,
        );
        if (name !== "model-overview") await shot(phone, `${name}-phone-${scheme}`);
      }
      assertCleanLoad(phone, origin);
    }
  },
  serverTest,
);
