/**
 * The token management area in a real browser (Chromium): a member signs in and makes a key with
 * the keyboard only, the secret page's copy button copies the SDK snippet, the wallet has the
 * Redeem a code form, every member page fits a phone's width, and the pages load clean in light
 * and dark. Screenshots (member-*.png) only with GATEWAY_SCREENSHOTS=1.
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
import {
  chatWith,
  inviteMember,
  MEMBER_PASSWORD,
  startMemberArea,
} from "../../helpers/member_area.ts";

const chromium = await findChromium();
const EMAIL = "web@example.com";

async function signInByKeyboard(watched: WatchedPage, origin: string) {
  const { page } = watched;
  await page.goto(`${origin}/console/sign-in`);
  // Chromium applies autofocus after the first rendering, a moment after the load.
  for (let i = 0; i < 100; i++) {
    if (await page.evaluate(`document.activeElement?.id === "email"`)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assertEquals(await page.evaluate(`document.activeElement?.id`), "email", "email has focus");
  await page.keyboard.type(EMAIL);
  await page.keyboard.press("Tab");
  await page.keyboard.type(MEMBER_PASSWORD);
  await Promise.all([
    page.waitForURL((url) => url.pathname === "/console/account"),
    page.keyboard.press("Enter"),
  ]);
}

/** Presses Tab until the focused element passes `test` (a JS expression of `el`), 80 at most. */
async function tabUntil(watched: WatchedPage, test: string, what: string) {
  for (let i = 0; i < 80; i++) {
    const reached = await watched.page.evaluate(
      `(() => { const el = document.activeElement; return Boolean(el && (${test})); })()`,
    );
    if (reached) return;
    await watched.page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${what}`);
}

const tabTo = (watched: WatchedPage, id: string) =>
  tabUntil(watched, `el.id === ${JSON.stringify(id)}`, `#${id}`);
const tabToLink = (watched: WatchedPage, href: string) =>
  tabUntil(watched, `el.getAttribute("href") === ${JSON.stringify(href)}`, href);

async function shoot(watched: WatchedPage, name: string) {
  if (SCREENSHOTS) {
    await watched.page.screenshot({ path: `${SCREENSHOTS}/member-${name}.png`, fullPage: true });
  }
}

chromium.test(
  "member console in Chromium: keyboard-only New key, the copy button copies the snippet, Redeem a code, phone width, light and dark",
  async (path) => {
    await using area = await startMemberArea();
    const origin = area.gw.url;
    await inviteMember(area.gw, { email: EMAIL, role: "owner", accountId: area.accountId });
    await using browser = await launchBrowser(path);

    const watched = await browser.newPage();
    const { page } = watched;
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    await signInByKeyboard(watched, origin);
    assertEquals(await page.getByRole("heading", { level: 1 }).textContent(), "Dashboard");
    assertCleanLoad(watched, origin);

    await tabToLink(watched, "/console/account/keys");
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/console/account/keys"),
      page.keyboard.press("Enter"),
    ]);
    await tabToLink(watched, "/console/account/keys/new");
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/console/account/keys/new"),
      page.keyboard.press("Enter"),
    ]);
    await tabTo(watched, "name");
    await page.keyboard.type("browser app");
    await page.keyboard.press("Tab");
    assertEquals(await page.evaluate(`document.activeElement?.id`), "models");
    await page.keyboard.press("ArrowDown"); // the first model chosen
    await tabTo(watched, "rpm");
    await page.keyboard.type("30");
    await Promise.all([
      page.waitForURL((url) => url.pathname.endsWith("/created")),
      page.keyboard.press("Enter"),
    ]);
    const secret = ((await page.locator("#secret").textContent()) ?? "").trim();
    assertOk(secret.startsWith("sk-"), secret);
    const keyId = new URL(page.url()).pathname.split("/")[4];
    const made = (await area.gw.admin("GET", `/admin/keys/${keyId}`)).body;
    assertEquals([made.name, made.rpm, made.models.length], ["browser app", 30, 1]);
    assertEquals((await chatWith(area.gw, secret, made.models[0])).status, 200, "the key works");
    await shoot(watched, "key-created");

    const snippet = (await page.locator("#snippet-0").textContent()) ?? "";
    assertOk(snippet.includes(`${origin}/v1`) && snippet.includes('from "openai"'), snippet);
    await tabUntil(watched, `el.dataset.copy === "snippet-0"`, "the snippet's copy button");
    await page.keyboard.press("Enter");
    // Polled with evaluate: waitForFunction evaluates a string, which the console's CSP refuses.
    for (let i = 0; i < 100; i++) {
      const copied = `document.querySelector('button[data-copy="snippet-0"]').textContent`;
      if (await page.evaluate(copied) === "Copied") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(await page.evaluate(`navigator.clipboard.readText()`), snippet);
    assertCleanLoad(watched, origin);

    await page.getByRole("link", { name: "Go to the key" }).click();
    await page.getByRole("heading", { name: "Key browser app" }).waitFor();
    await page.getByRole("navigation").getByRole("link", { name: "Wallet" }).click();
    await page.getByRole("heading", { name: "Redeem a code" }).waitFor();
    assertOk(await page.getByLabel("Code", { exact: true }).isVisible(), "the code field");
    assertOk(await page.getByRole("button", { name: "Redeem" }).isVisible());
    // Redeemed by keyboard: the balance rises once, shown on the page.
    const batch = await area.gw.admin("POST", "/admin/redemption-batches", {
      name: "browser",
      amount: 2_000_000,
      count: 1,
    });
    const code = batch.body.codes[0].code as string;
    const before = (await area.gw.admin("GET", `/admin/accounts/${area.accountId}`)).body.balance;
    await tabTo(watched, "code");
    await page.keyboard.type(code);
    await Promise.all([
      page.waitForURL((url) => url.searchParams.has("redeemed")),
      page.keyboard.press("Enter"),
    ]);
    assertOk((await page.locator('[role="status"]').textContent())?.includes("redeemed"));
    const after = (await area.gw.admin("GET", `/admin/accounts/${area.accountId}`)).body.balance;
    assertEquals(after, before + 2_000_000);
    await shoot(watched, "wallet");
    assertCleanLoad(watched, origin);

    await area.gw.settle();
    const pages = ["/console/account", "/console/account/keys", "/console/account/usage"];
    pages.push("/console/account/wallet", "/console/account/keys/new", "/console/account/models");
    pages.push(`/console/account/keys/${keyId}`);
    for (const scheme of ["light", "dark"] as const) {
      const themed = await browser.newPage({ colorScheme: scheme });
      await signInByKeyboard(themed, origin);
      const background = await themed.page.evaluate(
        `getComputedStyle(document.body).backgroundColor`,
      );
      assertEquals(background, scheme === "dark" ? "rgb(18, 20, 23)" : "rgb(247, 247, 248)");
      await shoot(themed, `dashboard-${scheme}`);
      await themed.page.goto(`${origin}/console/account/usage`);
      await shoot(themed, `usage-${scheme}`);
      await themed.page.goto(`${origin}/console/account/keys/${keyId}`);
      await shoot(themed, `key-${scheme}`);
      assertCleanLoad(themed, origin);
    }

    const noScript = await browser.newPage({ javaScriptEnabled: false });
    await noScript.page.goto(`${origin}/console/sign-in`);
    await noScript.page.getByLabel("Email").fill(EMAIL);
    await noScript.page.getByLabel("Password", { exact: true }).fill(MEMBER_PASSWORD);
    await noScript.page.getByRole("button", { name: "Sign in with email" }).click();
    await noScript.page.waitForURL((url) => url.pathname === "/console/account");
    await noScript.page.goto(`${origin}/console/account/keys/new`);
    await noScript.page.getByLabel("Name").fill("no script app");
    await noScript.page.getByRole("button", { name: "Create key" }).click();
    await noScript.page.waitForURL((url) => url.pathname.endsWith("/created"));
    const plainSecret = (await noScript.page.locator("#secret").textContent()) ?? "";
    assertOk(plainSecret.startsWith("sk-"), "the secret without JavaScript");
    assertEquals(await noScript.page.locator('button[data-copy="secret"]').isVisible(), false);

    const phone = await browser.newPage({ width: 375 });
    await signInByKeyboard(phone, origin);
    for (const pagePath of pages) {
      await phone.page.goto(`${origin}${pagePath}`);
      const fits = await phone.page.evaluate(
        `document.documentElement.scrollWidth <= window.innerWidth`,
      );
      assertEquals(fits, true, `no sideways scroll at 375 px on ${pagePath}`);
      assertCleanLoad(phone, origin);
    }
    await phone.page.goto(`${origin}/console/account/keys`);
    await shoot(phone, "keys-phone");
  },
);
