/**
 * The channel pages in a real browser (Chromium, driven by playwright-core): an openai channel
 * made by keyboard alone (New channel, the type, its form), its upstream's models fetched and one
 * served under a catalog name through the model map, a request served through it with the openai
 * SDK, then deleted with its confirmation; every channel page at 390 px without sideways page
 * scroll. No console error, no request to another origin.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  assertCleanLoad,
  launchBrowser,
  SCREENSHOTS,
  signIn,
  type WatchedPage,
} from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import {
  ADMIN_TOKEN,
  serverTest,
  startTestGateway,
  TEST_TEXT_PRICE,
} from "../../helpers/gateway.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";

const chromium = await findChromium();
const MODEL = "chat-browser";

/** Presses Tab until the focused element passes `test` (a JS expression of `el`), 120 at most. */
async function tabUntil(watched: WatchedPage, test: string, what: string) {
  for (let i = 0; i < 120; i++) {
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
const tabToButton = (watched: WatchedPage, text: string) =>
  tabUntil(
    watched,
    `el.tagName === "BUTTON" && el.textContent.trim() === ${JSON.stringify(text)}`,
    `the ${text} button`,
  );

/** Presses Enter on the focused control and waits for the page `path` matches. */
async function enterTo(watched: WatchedPage, path: RegExp) {
  await Promise.all([
    watched.page.waitForURL((url) => path.test(url.pathname + url.search)),
    watched.page.keyboard.press("Enter"),
  ]);
}

async function shoot(watched: WatchedPage, name: string) {
  if (SCREENSHOTS) {
    await watched.page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  }
}

async function assertFitsWidth(watched: WatchedPage, what: string) {
  const fits = await watched.page.evaluate(
    `document.documentElement.scrollWidth <= window.innerWidth`,
  );
  assertEquals(fits, true, `no sideways page scroll at 390 px on ${what}`);
}

chromium.test(
  "channels in Chromium: an openai channel made by keyboard, its models fetched and mapped, a request served through it, deleted",
  async (path) => {
    await using upstream = startOpenAIChatUpstream();
    await using gw = await startTestGateway();
    await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
    const { key } = await gw.createKey({ balance: 10_000_000 });
    await using browser = await launchBrowser(path);
    const watched = await browser.newPage();
    const { page } = watched;
    await signIn(watched, { origin: gw.url, token: ADMIN_TOKEN });

    await page.goto(`${gw.url}/console/channels`);
    await tabUntil(watched, `el.getAttribute("href") === "/console/channels/new"`, "New channel");
    await enterTo(watched, /^\/console\/channels\/new$/);
    await shoot(watched, "channel-new-type");
    // The first type, openai, is chosen already.
    await tabToButton(watched, "Continue");
    await enterTo(watched, /type=openai/);
    await tabTo(watched, "name");
    await page.keyboard.type("browser openai");
    await tabTo(watched, "base_url");
    await page.keyboard.type(upstream.baseUrl);
    await tabTo(watched, "keys");
    await page.keyboard.type("sk-upstream-test");
    await tabTo(watched, "models");
    await page.keyboard.type(MODEL);
    await shoot(watched, "channel-new-openai");
    await tabToButton(watched, "Create channel");
    await enterTo(watched, /^\/console\/channels\/ch_/);
    const id = new URL(page.url()).pathname.split("/")[3];
    assertEquals(
      await page.getByRole("heading", { level: 1 }).textContent(),
      "Channel browser openai",
    );
    assertCleanLoad(watched, gw.url);

    await tabToButton(watched, "Fetch models");
    await enterTo(watched, /\/models\/fetch$/);
    assertOk(await page.getByText("The upstream lists 3 models.").isVisible(), "the count");
    await shoot(watched, "channel-fetch-models");
    // Row 0 is the channel's own model (not in the upstream's list): serve gpt-4o-mini under it.
    await tabTo(watched, "serve-0");
    await page.keyboard.press("Space");
    await tabTo(watched, "serve-1");
    await page.keyboard.press("Space");
    await page.keyboard.press("Tab");
    assertEquals(await page.evaluate(`document.activeElement.name`), "public.1");
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type(MODEL);
    await tabToButton(watched, "Save models");
    await enterTo(watched, new RegExp(`^/console/channels/${id}$`));
    const channel = (await gw.admin("GET", `/admin/channels/${id}`)).body;
    assertEquals([channel.models, channel.model_map], [[MODEL], { [MODEL]: "gpt-4o-mini" }]);
    await shoot(watched, "channel-detail-new");
    assertCleanLoad(watched, gw.url);

    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "hello" }],
    });
    assertEquals(answer.model, MODEL);
    assertEquals(upstream.requests.at(-1)?.body.model, "gpt-4o-mini", "the model map applied");

    await tabTo(watched, "delete-confirm");
    await page.keyboard.press("Space");
    await tabToButton(watched, "Delete channel");
    await enterTo(watched, /^\/console\/channels\?deleted=1$/);
    assertOk(await page.getByText("The channel was deleted.").isVisible(), "said");
    assertEquals((await gw.admin("GET", `/admin/channels/${id}`)).status, 404);
    assertCleanLoad(watched, gw.url);
  },
  serverTest,
);

chromium.test(
  "channels in Chromium: every channel page fits 390 px, light and dark, with fetched models and test results",
  async (path) => {
    await using upstream = startOpenAIChatUpstream();
    await using gw = await startTestGateway();
    await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
    const { id } = await gw.addChannel({
      name: "phone openai",
      type: "openai",
      base_url: upstream.baseUrl,
      keys: ["sk-upstream-test"],
      models: [MODEL],
      model_map: { [MODEL]: "gpt-4o-mini" },
    });
    await using browser = await launchBrowser(path);
    for (const scheme of ["light", "dark"] as const) {
      const watched = await browser.newPage({ colorScheme: scheme, width: 390 });
      const { page } = watched;
      await signIn(watched, { origin: gw.url, token: ADMIN_TOKEN });
      const pages = [
        "/console/channels",
        "/console/channels/new",
        "/console/channels/new?type=anthropic",
        "/console/channels/new?type=ark-video",
        `/console/channels/new?from=${id}`,
        `/console/channels/${id}/edit`,
        `/console/channels/${id}`,
      ];
      for (const pagePath of pages) {
        const response = await page.goto(`${gw.url}${pagePath}`);
        assertEquals(response?.status(), 200, pagePath);
        await assertFitsWidth(watched, pagePath);
      }
      await page.getByRole("button", { name: "Fetch models" }).click();
      await page.waitForURL(/\/models\/fetch$/);
      await assertFitsWidth(watched, "the fetched models");
      await shoot(watched, `channel-fetch-models-phone-${scheme}`);
      await page.goto(`${gw.url}/console/channels/${id}`);
      await page.getByRole("button", { name: "Test every model" }).click();
      await page.waitForURL(/\/test-all$/);
      assertOk(await page.getByText("1 model tested: all passed.").isVisible(), "the result");
      await assertFitsWidth(watched, "the test results");
      await shoot(watched, `channel-tests-phone-${scheme}`);
      assertCleanLoad(watched, gw.url);
    }
  },
  serverTest,
);

chromium.reportIgnored("tests/e2e/console/browser_channel_pages_test.ts");
