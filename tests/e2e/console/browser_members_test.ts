/**
 * A member in a real browser (Chromium): the invitation link sets a password, keyboard-only
 * sign-in with email and password, the second factor set up in Settings (recovery codes shown
 * once), then keyboard-only sign-in with the TOTP code; the sign-in page fits a phone's width. No
 * page load requests another origin or logs a console error.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import { Secret, TOTP } from "otpauth";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertCleanLoad, launchBrowser } from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import { startTestGateway } from "../../helpers/gateway.ts";
import { createAccount } from "../../helpers/member_console.ts";

const chromium = await findChromium();
const PASSWORD = "a long enough password";

const codeAt = (secret: string, timestamp: number) =>
  new TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: Secret.fromBase32(secret) })
    .generate({ timestamp });

chromium.test(
  "members in Chromium: invitation, keyboard-only sign-in, second factor set up, keyboard-only sign-in with TOTP; phone width",
  async (path) => {
    await using gw = await startTestGateway();
    await using browser = await launchBrowser(path);
    const origin = gw.url;
    const account = await createAccount(gw, "Web");
    const invited = await gw.admin("POST", `/admin/accounts/${account}/invitations`, {
      email: "web@example.com",
      role: "owner",
    });
    const watched = await browser.newPage();
    const { page } = watched;

    await page.goto(invited.body.link);
    await page.getByLabel("Your name").fill("Web");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Accept and set password" }).click();
    await page.getByText("Your password is set").waitFor();
    assertCleanLoad(watched, origin);

    const signInByKeyboard = async () => {
      await page.goto(`${origin}/console/sign-in`);
      // Chromium applies autofocus after the first rendering, a moment after the load.
      for (let i = 0; i < 100; i++) {
        if (await page.evaluate(`document.activeElement?.id === "email"`)) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assertEquals(await page.evaluate(`document.activeElement?.id`), "email", "email has focus");
      await page.keyboard.type("web@example.com");
      await page.keyboard.press("Tab");
      assertEquals(await page.evaluate(`document.activeElement?.id`), "password");
      await page.keyboard.type(PASSWORD);
      await Promise.all([
        page.waitForURL((url) => url.pathname !== "/console/sign-in"),
        page.keyboard.press("Enter"),
      ]);
    };
    await signInByKeyboard();
    assertEquals(new URL(page.url()).pathname, "/console/account");
    assertOk((await page.content()).includes(account));

    await page.getByRole("navigation").getByRole("link", { name: "Settings" }).click();
    await page.getByRole("button", { name: "Set up the second factor" }).click();
    const secret = (await page.locator("#totp-secret").textContent()) ?? "";
    const now = Date.now();
    await page.getByLabel("Code from the app").fill(codeAt(secret, now));
    await page.getByRole("button", { name: "Turn on" }).click();
    const codes = ((await page.locator("#recovery-codes").textContent()) ?? "").trim().split("\n");
    assertEquals(codes.length, 10);
    assertCleanLoad(watched, origin);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((url) => url.pathname === "/console/sign-in");
    await signInByKeyboard();
    assertEquals(new URL(page.url()).pathname, "/console/sign-in/second-factor");
    for (let i = 0; i < 100; i++) {
      if (await page.evaluate(`document.activeElement?.id === "code"`)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(await page.evaluate(`document.activeElement?.id`), "code", "code has focus");
    await page.keyboard.type(codeAt(secret, now + 30_000));
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/console/account"),
      page.keyboard.press("Enter"),
    ]);
    assertCleanLoad(watched, origin);

    const phone = await browser.newPage({ width: 375 });
    await phone.page.goto(`${origin}/console/sign-in`);
    const fits = await phone.page.evaluate(
      `document.documentElement.scrollWidth <= window.innerWidth`,
    );
    assertEquals(fits, true, "no sideways scroll at 375 px");
    assertCleanLoad(phone, origin);
  },
);
