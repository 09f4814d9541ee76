/**
 * The console's Requests and Tasks pages in Chromium (playwright-core), light and dark: each loads
 * with no console error and no request to another origin; the operator filters requests by status
 * and opens a receipt, filters tasks by kind and opens one whose image preview loads from the
 * gateway's own media; a holder at phone width sees its own request's receipt.
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
import { ADMIN_TOKEN, postJson, serverTest, type TestGateway } from "../../helpers/gateway.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";
import { IMAGE_MODEL, setupImages } from "../../helpers/image_setup.ts";

const chromium = await findChromium();

/** Fails when the page scrolls sideways (tables scroll in their own box), naming what sticks out. */
async function assertFitsPhone(watched: WatchedPage) {
  const wide = await watched.page.evaluate(
    `document.documentElement.scrollWidth <= document.documentElement.clientWidth ? "" :
      [...document.querySelectorAll("main *:not(.table-wrap *)")]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth)
        .map((e) => e.tagName + ": " + e.textContent.slice(0, 40)).slice(0, 5).join(" | ")`,
  );
  assertEquals(wide, "", "fits a phone's width");
}

async function taskDone(gw: TestGateway, id: string) {
  for (let i = 0; i < 400; i++) {
    const { body } = await gw.admin("GET", `/admin/tasks/${id}`);
    if (body.status === "succeeded") return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${id} did not succeed`);
}

chromium.test(
  "console requests in Chromium: filter by status, open a receipt, light and dark; a holder at phone width",
  async (path) => {
    await using s = await setupChat();
    const ok = await postJson(s.gw, "/v1/chat/completions", s.key, {
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
    });
    await ok.body?.cancel();
    const requestId = ok.headers.get("x-request-id")!;
    await s.gw.settle();
    await using browser = await launchBrowser(path);
    for (const scheme of ["light", "dark"] as const) {
      const watched = await browser.newPage({ colorScheme: scheme });
      const { page } = watched;
      await signIn(watched, { origin: s.gw.url, token: ADMIN_TOKEN });
      await page.goto(`${s.gw.url}/console/requests`);
      assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Requests");
      await page.getByLabel("Status").selectOption("2xx");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/status=2xx/);
      await page.locator(`a[href="/console/requests/${requestId}"]`).click();
      await page.waitForURL(new RegExp(`/console/requests/${requestId}$`));
      assertOk(await page.getByRole("heading", { name: "Receipt" }).isVisible(), "the receipt");
      assertOk(await page.getByRole("heading", { name: "Attempts" }).isVisible(), "attempts");
      await page.screenshot({
        path: `${SCREENSHOTS ?? await Deno.makeTempDir()}/request-${scheme}.png`,
        fullPage: true,
      });
      await page.getByText("Copy as curl").click();
      assertOk(await page.locator("#curl-request").isVisible(), "the curl");
      assertCleanLoad(watched, s.gw.url);
    }
    const holder = await browser.newPage({ colorScheme: "dark", width: 375 });
    await signIn(holder, { origin: s.gw.url, token: s.key });
    await holder.page.goto(`${s.gw.url}/console/requests`);
    await holder.page.locator(`a[href="/console/requests/${requestId}"]`).click();
    // The click navigates: wait for the page, as the operator's half above does.
    await holder.page.waitForURL(new RegExp(`/console/requests/${requestId}$`));
    await holder.page.getByRole("heading", { name: "Receipt" }).waitFor();
    assertOk(await holder.page.getByRole("heading", { name: "Receipt" }).isVisible());
    assertEquals(await holder.page.getByRole("heading", { name: "Attempts" }).count(), 0);
    await assertFitsPhone(holder);
    assertCleanLoad(holder, s.gw.url);
  },
  serverTest,
);

chromium.test(
  "console tasks in Chromium: filter by kind, open a task whose image preview loads from the gateway, light and dark",
  async (path) => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGE_MODEL,
      prompt: "a kite",
    }, { "x-gateway-async-task": "true" });
    const id = (await submitted.json()).data.task_id;
    await taskDone(s.gw, id);
    await s.gw.settle();
    await using browser = await launchBrowser(path);
    for (const scheme of ["light", "dark"] as const) {
      const watched = await browser.newPage({ colorScheme: scheme });
      const { page } = watched;
      await signIn(watched, { origin: s.gw.url, token: ADMIN_TOKEN });
      await page.goto(`${s.gw.url}/console/tasks`);
      assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Tasks");
      await page.getByLabel("Kind").selectOption("image");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/kind=image/);
      await page.screenshot({
        path: `${SCREENSHOTS ?? await Deno.makeTempDir()}/tasks-${scheme}.png`,
        fullPage: true,
      });
      await page.locator(`a[href="/console/tasks/${id}"]`).click();
      await page.waitForURL(new RegExp(`/console/tasks/${id}$`));
      const preview = page.locator("img.preview");
      await preview.waitFor();
      const loaded = await preview.evaluate((img) =>
        (img as unknown as { complete: boolean; naturalWidth: number }).complete &&
        (img as unknown as { naturalWidth: number }).naturalWidth > 0
      );
      assertOk(loaded, "the preview image loaded under the CSP");
      assertOk(await page.getByRole("heading", { name: "Billing" }).isVisible(), "billing");
      assertCleanLoad(watched, s.gw.url);
    }
    const holder = await browser.newPage({ width: 375 });
    await signIn(holder, { origin: s.gw.url, token: s.key });
    await holder.page.goto(`${s.gw.url}/console/tasks`);
    await holder.page.locator(`a[href="/console/tasks/${id}"]`).click();
    await holder.page.locator("img.preview").waitFor();
    await assertFitsPhone(holder);
    assertCleanLoad(holder, s.gw.url);
  },
  serverTest,
);

chromium.reportIgnored("tests/e2e/console/browser_requests_tasks_test.ts");
