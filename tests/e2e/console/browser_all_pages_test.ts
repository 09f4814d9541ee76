/**
 * Every console page at phone width in a real browser (Chromium, driven by playwright-core): the
 * operator's, a key holder's and a member's pages, found by following the console's own links
 * from the nav (one page of each kind: `/console/keys/key_…` once, each `?tab=` once). On each
 * page at 390 px: no sideways page scroll; every table either fits or scrolls inside a box of
 * its own that fits, with the scroll cue and a sticky first column when it overflows; no console
 * error and no request to another origin. Pages no link leads to are opened too: the search's
 * results, the New channel form of every channel type, a channel of every type (its page and
 * edit form), and the answers of "Fetch models" and "Test every model". At 1,440 px the webhook
 * deliveries table fits without scrolling, and no tab of a key's page is taller than 2,400 px.
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  assertCleanLoad,
  launchBrowser,
  signIn,
  type TestBrowser,
  type WatchedPage,
} from "../../helpers/browser.ts";
import { findChromium } from "../../helpers/external_tools.ts";
import type { ChannelType } from "../../../core/channels/channel_schema.ts";
import { PROVIDERS } from "../../../core/providers/provider_table.ts";
import { makeServiceAccount } from "../../upstream/vertex.ts";
import { ADMIN_TOKEN, serverTest, type TestGateway } from "../../helpers/gateway.ts";
import { inviteMember, MEMBER_PASSWORD } from "../../helpers/member_area.ts";
import { startWebhookReceiver } from "../../helpers/webhook_receiver.ts";
import {
  createEndpoint,
  setupWebhookImages,
  submitImageTask,
  waitForImageTask,
} from "../../helpers/webhook_setup.ts";

const chromium = await findChromium();
const PHONE = 390;
const MEMBER_EMAIL = "owner@example.com";
/** More kinds of page than the console has: a crawl that finds more is following a loop. */
const MOST_PAGES = 120;
/** How tall a tab of a key's page may be at 1,440 px (the whole page was 5,629 px). */
const TALLEST_TAB = 2_400;

/**
 * What is wrong with the layout of the page open in the browser, as sentences (none: fine).
 * Evaluated as a string: the test runs in Deno, the checks in the page.
 */
const LAYOUT_PROBLEMS = `(() => {
  const width = innerWidth;
  const problems = [];
  const page = document.scrollingElement.scrollWidth;
  if (page > width) {
    const wide = [...document.querySelectorAll("body *")]
      .filter((element) => element.getBoundingClientRect().right > width + 1 &&
        !element.parentElement.closest(".table-wrap, pre"))
      .map((element) => element.tagName.toLowerCase() + (element.id ? "#" + element.id : "") +
        (element.className ? "." + element.className : ""));
    problems.push("the page scrolls sideways: " + page + " > " + width + " (" + wide.slice(0, 6).join(", ") + ")");
  }
  for (const table of document.querySelectorAll("table")) {
    const box = table.getBoundingClientRect();
    if (box.width === 0) continue;
    const name = (table.caption?.textContent || table.querySelector("th")?.textContent || "").trim();
    let scroller = table.parentElement;
    while (scroller && !["auto", "scroll"].includes(getComputedStyle(scroller).overflowX)) {
      scroller = scroller.parentElement;
    }
    if (!scroller) {
      if (box.left < -1 || box.right > width + 1) problems.push("table " + name + " is clipped");
      continue;
    }
    if (scroller.getBoundingClientRect().right > width + 1) {
      problems.push("the scroll box of table " + name + " is wider than the screen");
    }
    if (scroller.scrollWidth > scroller.clientWidth + 1) {
      if (!getComputedStyle(scroller).backgroundImage.includes("gradient")) {
        problems.push("table " + name + " overflows with no scroll cue");
      }
      const first = table.querySelector("tr > :first-child");
      if (first && getComputedStyle(first).position !== "sticky") {
        problems.push("the first column of table " + name + " scrolls away");
      }
    }
  }
  return problems;
})()`;

/** The console links of the open page, as absolute paths with their query. */
const CONSOLE_LINKS = `[...document.querySelectorAll("a[href^='/console']:not([download])")]
  .map((link) => link.getAttribute("href"))`;

/** One page of each kind: ids and names replaced, the query dropped but for `tab` and `type`. */
function pageKind(href: string): string {
  const url = new URL(href, "http://console");
  const parts = url.pathname.split("/");
  const path = parts.map((part, index) =>
    /^[a-z]+_[A-Za-z0-9_-]{6,}$/.test(part)
      ? ":id"
      : /^(models|groups)$/.test(parts[index - 1]) && part !== "new"
      ? ":name"
      : part
  ).join("/");
  const kept = ["tab", "type"].filter((name) => url.searchParams.has(name))
    .map((name) => `${name}=${url.searchParams.get(name)}`);
  return kept.length ? `${path}?${kept.join("&")}` : path;
}

/** Fails unless the page open in `watched` fits the phone, logged no error, stayed home. */
async function assertPageFits(watched: WatchedPage, origin: string, what: string) {
  const problems = await watched.page.evaluate(LAYOUT_PROBLEMS) as string[];
  assertEquals(problems, [], `${what} at ${PHONE} px: ${problems.join("; ")}`);
  assertCleanLoad(watched, origin);
}

/** Links not to follow: downloads, and pages that end the session or are for signed-out. */
function followed(href: string): boolean {
  const path = new URL(href, "http://console").pathname;
  return !/\/export$|\.csv$|\/sign-(in|up|out)|\/forgot|\/reset|\/invitation/.test(path);
}

/** Opens `seeds` and every page reachable from them by console links, checking each. */
async function crawl(
  watched: WatchedPage,
  { origin, seeds }: { origin: string; seeds: string[] },
): Promise<string[]> {
  const seen = new Set<string>();
  const queue = [...seeds];
  const visited: string[] = [];
  while (queue.length) {
    const href = queue.shift()!;
    const kind = pageKind(href);
    if (seen.has(kind) || !followed(href)) continue;
    seen.add(kind);
    assertOk(visited.length < MOST_PAGES, `more than ${MOST_PAGES} kinds of page`);
    const response = await watched.page.goto(`${origin}${href}`);
    assertOk((response?.status() ?? 0) < 400, `${href}: ${response?.status()}`);
    visited.push(href);
    await assertPageFits(watched, origin, href);
    queue.push(...(await watched.page.evaluate(CONSOLE_LINKS)) as string[]);
  }
  return visited;
}

/** The gateway with something on every page: a task with its webhook delivery, an account. */
async function populate(gw: TestGateway) {
  const batch = await gw.admin("POST", "/admin/redemption-batches", {
    name: "welcome",
    amount: 2_000_000,
    count: 2,
  });
  assertEquals(batch.status, 201, JSON.stringify(batch.body));
  const account = await gw.admin("POST", "/admin/accounts", { name: "acme", balance: 5_000_000 });
  assertEquals(account.status, 201, JSON.stringify(account.body));
  await inviteMember(gw, { email: MEMBER_EMAIL, role: "owner", accountId: account.body.id });
  const accountKey = await gw.admin("POST", "/admin/keys", {
    name: "acme app",
    account_id: account.body.id,
  });
  assertEquals(accountKey.status, 201, JSON.stringify(accountKey.body));
}

/** Each channel type's own settings (none: only a base URL and a key), for a channel on a closed port. */
async function channelOfEachType(gw: TestGateway): Promise<string[]> {
  const vertexKey = await makeServiceAccount({
    name: "pages",
    project: "pages-project",
    tokenUri: "http://127.0.0.1:9/token",
  });
  const own: Partial<Record<ChannelType, Record<string, unknown>>> = {
    "azure-openai": { api_version: "2024-10-21" },
    "azure-openai-responses": { api_version: "2025-04-01-preview" },
    vertex: { project: "pages-project", location: "us-central1", keys: [vertexKey.json] },
    bedrock: { region: "us-east-1", keys: ["AKIAIOSFODNN7EXAMPLE:secret"] },
  };
  const prices: Record<string, object> = {
    text: { input: 1, output: 1 },
    image: { per_image: 1 },
    video: { per_second: 1 },
    rerank: { per_search: 1 },
  };
  const ids = [];
  for (const type of Object.keys(PROVIDERS) as ChannelType[]) {
    const kind = PROVIDERS[type].kinds[0];
    await gw.putModel(`phone-${kind}`, { kind, price: prices[kind] });
    const { id } = await gw.addChannel({
      name: `${type} on a phone`,
      type,
      base_url: "http://127.0.0.1:9",
      models: [`phone-${kind}`],
      ...own[type],
    });
    ids.push(id);
  }
  return ids;
}

async function signInMember(watched: WatchedPage, origin: string) {
  await watched.page.goto(`${origin}/console/sign-in`);
  await watched.page.getByLabel("Email").fill(MEMBER_EMAIL);
  await watched.page.getByLabel("Password", { exact: true }).fill(MEMBER_PASSWORD);
  await watched.page.getByRole("button", { name: "Sign in with email" }).click();
  await watched.page.waitForURL((url) => url.pathname === "/console/account");
}

async function phone(browser: TestBrowser) {
  return await browser.newPage({ width: PHONE });
}

chromium.test(
  "console in Chromium: every page of the operator, a holder and a member fits 390 px; tables scroll in their box with a cue and a sticky first column",
  async (path) => {
    await using s = await setupWebhookImages();
    await using receiver = startWebhookReceiver();
    const endpoint = await createEndpoint(s, { url: receiver.url });
    await waitForImageTask(s, await submitImageTask(s));
    await receiver.waitFor(1);
    await populate(s.gw);
    const channelIds = await channelOfEachType(s.gw);
    await s.gw.settle();
    const origin = s.gw.url;
    await using browser = await launchBrowser(path);

    const operator = await phone(browser);
    await signIn(operator, { origin, token: ADMIN_TOKEN });
    const operatorPages = await crawl(operator, {
      origin,
      seeds: [
        "/console",
        "/console/keys/new",
        "/console/accounts/new",
        "/console/channels/new",
        "/console/redemption-codes/new",
        "/console/webhooks/new",
        "/console/search?q=acme",
        ...Object.keys(PROVIDERS).map((type) => `/console/channels/new?type=${type}`),
      ],
    });
    for (
      const kind of [
        "/console/keys/:id",
        "/console/accounts/:id",
        "/console/channels/:id",
        "/console/requests/:id",
        "/console/tasks/:id",
        "/console/webhooks/:id",
        "/console/audit",
        "/console/groups",
        "/console/models",
        "/console/models/:name",
        "/console/money",
        "/console/search",
        "/console/channels/:id/edit",
        ...Object.keys(PROVIDERS).map((type) => `/console/channels/new?type=${type}`),
      ]
    ) {
      assertOk(operatorPages.some((href) => pageKind(href) === kind), `${kind} was reached`);
    }
    // A channel of every type: its page and its edit form (the type's own fields).
    for (const id of channelIds) {
      for (const href of [`/console/channels/${id}`, `/console/channels/${id}/edit`]) {
        const response = await operator.page.goto(`${origin}${href}`);
        assertEquals(response?.status(), 200, href);
        await assertPageFits(operator, origin, href);
      }
    }
    // The answers of the channel page's buttons (POSTs, so no link leads there).
    const images = (await s.gw.admin("GET", "/admin/channels")).body.data
      .find((channel: { type: string }) => channel.type === "openai-images");
    for (
      const [button, path] of [["Fetch models", /\/models\/fetch$/], [
        "Test every model",
        /\/test-all$/,
      ]] as const
    ) {
      await operator.page.goto(`${origin}/console/channels/${images.id}`);
      await Promise.all([
        operator.page.waitForURL(path),
        operator.page.getByRole("button", { name: button }).click(),
      ]);
      await assertPageFits(operator, origin, `the answer of ${button}`);
    }

    const holder = await phone(browser);
    await signIn(holder, { origin, token: s.key });
    const holderPages = await crawl(holder, { origin, seeds: ["/console/me"] });
    assertOk(holderPages.some((href) => pageKind(href) === "/console/tasks/:id"), "a task");

    const member = await phone(browser);
    await signInMember(member, origin);
    const memberPages = await crawl(member, {
      origin,
      seeds: ["/console/account", "/console/account/keys/new", "/console/settings"],
    });
    assertOk(memberPages.includes("/console/members"), "the owner's Members page");

    // A desktop screen: the deliveries table uses its width rather than scrolling.
    const desktop = await browser.newPage({ width: 1440 });
    await signIn(desktop, { origin, token: ADMIN_TOKEN });
    await desktop.page.goto(`${origin}/console/webhooks/${endpoint.id}`);
    const fits = await desktop.page.evaluate(`[...document.querySelectorAll("table")]
      .filter((table) => table.textContent.includes("Next attempt"))
      .map((table) => table.parentElement.scrollWidth <= table.parentElement.clientWidth)`);
    assertEquals(fits, [true], "the deliveries table fits 1,440 px");

    // The key page in tabs: no tab is anywhere near the 5,629 px the whole page was.
    for (const tab of ["", "?tab=usage", "?tab=ledger", "?tab=settings", "?tab=sdk"]) {
      await desktop.page.goto(`${origin}/console/keys/${s.keyId}${tab}`);
      const height = await desktop.page.evaluate(`document.scrollingElement.scrollHeight`);
      assertOk((height as number) < TALLEST_TAB, `the key page${tab} is ${height} px tall`);
    }
    assertCleanLoad(desktop, origin);
  },
  serverTest,
);

chromium.reportIgnored("tests/e2e/console/browser_all_pages_test.ts");
