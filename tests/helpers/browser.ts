/**
 * A real Chromium (Debian's, found by tests/helpers/external_tools.ts) driven by playwright-core,
 * for the console's browser tests. Every page records the requests it makes and the console
 * errors it logs, so a test can assert that a page load stayed on the gateway's origin and logged
 * no error.
 */

import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { assertEquals } from "./assert.ts";

/** Where screenshots go: docs/screenshots/ with GATEWAY_SCREENSHOTS=1, else nowhere kept. */
export const SCREENSHOTS = Deno.env.get("GATEWAY_SCREENSHOTS") === "1"
  ? new URL("../../docs/screenshots/", import.meta.url).pathname
  : undefined;

export interface WatchedPage {
  page: Page;
  /** Every request URL the page made. */
  requests: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
}

export interface TestBrowser extends AsyncDisposable {
  browser: Browser;
  /** A new context (own cookies) and page; `javaScriptEnabled: false` for the no-JS paths. */
  newPage(
    options?: { colorScheme?: "light" | "dark"; javaScriptEnabled?: boolean; width?: number },
  ): Promise<WatchedPage>;
}

/** Launches Chromium at `path` headless (no sandbox: CI runs as root in a container). */
export async function launchBrowser(path: string): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: path, args: ["--no-sandbox"] });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext({
        colorScheme: options.colorScheme ?? "light",
        javaScriptEnabled: options.javaScriptEnabled ?? true,
        viewport: { width: options.width ?? 1100, height: 800 },
      });
      contexts.push(context);
      const page = await context.newPage();
      const watched: WatchedPage = { page, requests: [], errors: [] };
      page.on("request", (request) => watched.requests.push(request.url()));
      page.on("console", (message) => {
        if (message.type() === "error") watched.errors.push(message.text());
      });
      page.on("pageerror", (error) => watched.errors.push(String(error)));
      return watched;
    },
    async [Symbol.asyncDispose]() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
    },
  };
}

/** The requests of `watched` that left `origin` (data: URLs stay in the page). */
export function foreignRequests(watched: WatchedPage, origin: string): string[] {
  return watched.requests.filter((url) =>
    !url.startsWith(`${origin}/`) && !url.startsWith("data:")
  );
}

/** Fails when the page called another origin or logged a console error. */
export function assertCleanLoad(watched: WatchedPage, origin: string): void {
  assertEquals(foreignRequests(watched, origin), [], "requests to another origin");
  assertEquals(watched.errors, [], `console errors: ${watched.errors.join("; ")}`);
}

/** Signs in through the sign-in form with `token` and waits to leave the sign-in page. */
export async function signIn(
  watched: WatchedPage,
  { origin, token }: { origin: string; token: string },
): Promise<void> {
  await watched.page.goto(`${origin}/console/sign-in`);
  await watched.page.getByLabel("Token", { exact: true }).fill(token);
  await watched.page.getByRole("button", { name: "Sign in", exact: true }).click();
  await watched.page.waitForURL((url) => !url.pathname.startsWith("/console/sign-in"));
}
