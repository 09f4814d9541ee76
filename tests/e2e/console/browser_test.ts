/**
 * The console in a real browser (Chromium, driven by playwright-core): keyboard-only sign-in,
 * holder sign-in and refusal of operator pages, create key → secret shown once → the key works
 * at /v1/chat/completions, Disable → the API refuses, Enable → it works again, the theme switch
 * without JavaScript; no page load requests another origin or logs a console error. Screenshots
 * (light and dark) of the sign-in page, the keys list and a key's detail are taken; with
 * GATEWAY_SCREENSHOTS=1 they are written to docs/screenshots/.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  assertCleanLoad,
  launchBrowser,
  SCREENSHOTS,
  type WatchedPage,
} from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import { ADMIN_TOKEN, postJson, serverTest } from "../../helpers/gateway.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const chromium = await findChromium();
const ask = { model: MODEL, messages: [{ role: "user", content: "hi" }] };

/** Signs in through the form with the keyboard only: Tab to the Token field, type, Enter. */
async function signInByKeyboard(watched: WatchedPage, token: string) {
  const { page } = watched;
  for (let tabs = 0; tabs < 10; tabs++) {
    if (await page.evaluate(`document.activeElement?.id === "token"`)) break;
    await page.keyboard.press("Tab");
  }
  assertEquals(await page.evaluate(`document.activeElement?.id`), "token");
  await page.keyboard.type(token);
  await Promise.all([
    page.waitForURL((url) => !url.pathname.startsWith("/console/sign-in")),
    page.keyboard.press("Enter"),
  ]);
}

chromium.test(
  "console in Chromium: operator signs in by keyboard, creates a key (secret once), the key works; Disable/Enable follow at the API",
  async (path) => {
    await using s = await setupChat();
    await using browser = await launchBrowser(path);
    const origin = s.gw.url;
    const watched = await browser.newPage();
    const { page } = watched;

    await page.goto(`${origin}/console/keys`);
    assertOk(new URL(page.url()).pathname === "/console/sign-in", page.url());
    await signInByKeyboard(watched, ADMIN_TOKEN);
    assertEquals(new URL(page.url()).pathname, "/console/keys");
    assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Keys");
    for (const label of ["Overview", "Keys", "Channels", "Requests", "Tasks", "Models", "Audit"]) {
      assertEquals(
        await page.getByRole("navigation").getByRole("link", { name: label, exact: true }).count(),
        1,
        label,
      );
    }

    await page.getByRole("link", { name: "New key" }).click();
    await page.getByLabel("Name", { exact: true }).fill("browser key");
    await page.getByLabel("Balance (USD)").fill("3");
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(/\/console\/keys\/key_\w+\/created$/);
    const secret = (await page.locator("#secret").textContent()) ?? "";
    assertOk(/^sk-gw-\w+$/.test(secret), secret);
    assertOk(await page.getByRole("button", { name: "Copy" }).isVisible(), "copy button with JS");
    await page.reload();
    assertEquals(await page.locator("#secret").count(), 0, "the secret is gone on reload");
    assertOk((await page.content()).includes("cannot be shown again"));

    const works = await postJson(s.gw, "/v1/chat/completions", secret, ask);
    await works.body?.cancel();
    assertEquals(works.status, 200);

    await page.getByRole("link", { name: "Go to the key" }).click();
    await page.waitForURL(/\/console\/keys\/key_\w+$/);
    const check = await page.locator("p.ok").textContent();
    assertOk(check?.startsWith("Σ entries = balance ✓"), String(check));
    await page.getByRole("button", { name: "Disable" }).click();
    await page.getByRole("button", { name: "Enable" }).waitFor();
    const refused = await postJson(s.gw, "/v1/chat/completions", secret, ask);
    assertEquals(refused.status, 401);
    await refused.body?.cancel();
    await page.getByRole("button", { name: "Enable" }).click();
    await page.getByRole("button", { name: "Disable" }).waitFor();
    const again = await postJson(s.gw, "/v1/chat/completions", secret, ask);
    await again.body?.cancel();
    assertEquals(again.status, 200);
    assertCleanLoad(watched, origin);
  },
  serverTest,
);

chromium.test(
  "console in Chromium: a holder signs in with a key, sees My key, and cannot reach operator pages",
  async (path) => {
    await using s = await setupChat();
    await using browser = await launchBrowser(path);
    const watched = await browser.newPage({ width: 390 });
    const { page } = watched;
    await page.goto(`${s.gw.url}/console`);
    await page.getByLabel("Token", { exact: true }).fill(s.key);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/console\/me$/);
    assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "My key");
    const nav = page.getByRole("navigation");
    for (const label of ["My key", "Requests", "Tasks"]) {
      assertEquals(await nav.getByRole("link", { name: label, exact: true }).count(), 1, label);
    }
    assertEquals(await nav.getByRole("link", { name: "Keys", exact: true }).count(), 0);
    assertCleanLoad(watched, s.gw.url);
    for (const path of ["/console/keys", "/console/audit", "/console"]) {
      const response = await page.goto(`${s.gw.url}${path}`);
      assertEquals(response?.status(), 403, path);
      assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Not allowed");
    }
  },
  serverTest,
);

chromium.test(
  "console in Chromium: the theme switch works without JavaScript; screenshots light and dark",
  async (path) => {
    await using s = await setupChat();
    await using browser = await launchBrowser(path);
    const noJs = await browser.newPage({ javaScriptEnabled: false });
    await noJs.page.goto(`${s.gw.url}/console/sign-in`);
    await noJs.page.getByRole("button", { name: "Dark theme" }).click();
    assertEquals(await noJs.page.locator("html").getAttribute("data-theme"), "dark");
    await noJs.page.getByRole("button", { name: "Light theme" }).click();
    assertEquals(await noJs.page.locator("html").getAttribute("data-theme"), "light");
    // Without JS: sign-in works, snippets are plain selectable text, copy buttons stay hidden.
    await noJs.page.getByLabel("Token", { exact: true }).fill(ADMIN_TOKEN);
    await noJs.page.getByRole("button", { name: "Sign in", exact: true }).click();
    await noJs.page.goto(`${s.gw.url}/console/keys/${s.keyId}?tab=sdk`);
    assertOk(await noJs.page.locator("#snippet-0").isVisible(), "the snippet is shown");
    assertEquals(await noJs.page.getByRole("button", { name: "Copy" }).count(), 0);

    const folder = SCREENSHOTS ?? await Deno.makeTempDir({ prefix: "console-shots-" });
    try {
      for (const scheme of ["light", "dark"] as const) {
        const watched = await browser.newPage({ colorScheme: scheme });
        const { page } = watched;
        await page.goto(`${s.gw.url}/console/sign-in`);
        const background = await page.evaluate(`getComputedStyle(document.body).backgroundColor`);
        assertEquals(background, scheme === "dark" ? "rgb(18, 20, 23)" : "rgb(247, 247, 248)");
        await page.screenshot({ path: `${folder}/sign-in-${scheme}.png` });
        await page.getByLabel("Token", { exact: true }).fill(ADMIN_TOKEN);
        await page.getByRole("button", { name: "Sign in", exact: true }).click();
        await page.waitForURL((url) => url.pathname === "/console");
        await page.goto(`${s.gw.url}/console/keys`);
        await page.screenshot({ path: `${folder}/keys-${scheme}.png`, fullPage: true });
        // The key's name (its account, made with the same name, is a link beside it).
        await page.locator(`a[href="/console/keys/${s.keyId}"]`, { hasText: "test" }).click();
        await page.waitForURL(/\/console\/keys\/key_\w+$/);
        await page.screenshot({ path: `${folder}/key-detail-${scheme}.png`, fullPage: true });
        assertCleanLoad(watched, s.gw.url);
      }
    } finally {
      if (!SCREENSHOTS) await Deno.remove(folder, { recursive: true });
    }
  },
  serverTest,
);

chromium.reportIgnored("tests/e2e/console/browser_test.ts");
