/**
 * An operator's first job in a real browser (Chromium, driven by playwright-core), once per
 * channel type of the provider table: the currency set on the Money page (EUR, 2 decimals); a
 * model added and priced in euros on the Models page and its own page, flagged as served by no
 * channel (badge and Overview count); a channel of the type made through the New channel form
 * with its own fields, pointed at the type's simulator (tests/upstream/); "Fetch models" where
 * the type has a model list, the upstream's model ticked and served under the catalog name (the
 * model map); a request served through it as clients send it (the openai SDK for chat and
 * images, POST /v1/video/generations then polling for video, a raw fetch for rerank as Dify
 * sends it); the request found on the Requests page by the channel's name typed into the picker,
 * and its receipt in euros; the channel deleted with its confirmation, and the model flagged
 * again. A type of the table without a journey here fails the test. With GATEWAY_SCREENSHOTS=1
 * the Money page, the New channel forms with fields of their own, the requests found by channel
 * and a receipt in euros are written to docs/screenshots/.
 *
 * Not through a form: `rerank_path` (the rerank form has no field for it; the default
 * `/v1/rerank` is used), and a gateway-video channel's upstream (another gateway, set up by
 * the admin API, as it is not the console under test).
 *
 * Ignored with one line when Chromium is missing (GATEWAY_TEST_STRICT=1: failed).
 */

import OpenAI from "openai";
import type { ChannelType } from "../../../core/channels/channel_schema.ts";
import { PROVIDERS } from "../../../core/providers/provider_table.ts";
import { consoleMoney } from "../../../routes/console/money.tsx";
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
  type TestGateway,
} from "../../helpers/gateway.ts";
import { requestRecord } from "../../helpers/hosted_video_setup.ts";
import { FAST_VIDEO_ENV, videoClient } from "../../helpers/video_setup.ts";
import { startAnthropicUpstream } from "../../upstream/anthropic.ts";
import { startArkVideoUpstream } from "../../upstream/ark_video.ts";
import { startAzureOpenAIUpstream } from "../../upstream/azure_openai.ts";
import { startGeminiUpstream } from "../../upstream/gemini.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";
import { startOpenAIResponsesUpstream } from "../../upstream/openai_responses.ts";
import { startOpenAIVideoUpstream } from "../../upstream/openai_video.ts";
import { startRerankUpstream } from "../../upstream/rerank.ts";
import { startVeoUpstream } from "../../upstream/veo.ts";
import { startVertexUpstream } from "../../upstream/vertex.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_MODEL,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "../../upstream/bedrock.ts";

const chromium = await findChromium();
const EUROS = { currency: "EUR", decimals: 2 };
const euros = consoleMoney(EUROS);
const WARNING = "no enabled channel serves it";

type Kind = "text" | "image" | "video" | "rerank";

/** A simulator started for one journey: the form's values that point a channel at it. */
interface Upstream {
  /** Form field id → value: base_url, keys and the type's own fields. */
  form: Record<string, string>;
  close(): Promise<void>;
}

interface Journey {
  kind: Kind;
  /** Whether the channel's page offers "Fetch models" (the type lists its upstream's models). */
  fetches: boolean;
  /** The upstream model the catalog name is served as (fetched, or typed into the model map). */
  upstreamModel: string;
  start(): Promise<Upstream>;
}

const upstreamOf = (
  sim: { close(): Promise<void> },
  form: Record<string, string>,
): Upstream => ({ form, close: () => sim.close() });

/** A second gateway with an ark-video channel: what a gateway-video channel talks to. */
async function nextGateway(): Promise<Upstream> {
  const ark = startArkVideoUpstream();
  const next = await startTestGateway(FAST_VIDEO_ENV);
  await next.putModel("vid-next", { kind: "video", price: { per_second: 10_000 } });
  await next.addChannel({
    name: "ark",
    type: "ark-video",
    base_url: ark.baseUrl,
    keys: ["ark-upstream-test"],
    models: ["vid-next"],
  });
  const { key } = await next.createKey({ balance: 100_000_000 });
  return {
    form: { base_url: `${next.url}/v1`, keys: key },
    close: async () => {
      await next.close();
      await ark.close();
    },
  };
}

/** Every channel type's journey; the Record's type makes a new channel type a compile error. */
const JOURNEYS: Record<ChannelType, Journey> = {
  "openai": {
    kind: "text",
    fetches: true,
    upstreamModel: "gpt-4o-mini",
    start: () => {
      const sim = startOpenAIChatUpstream();
      return Promise.resolve(upstreamOf(sim, { base_url: sim.baseUrl, keys: "sk-upstream-test" }));
    },
  },
  "openai-responses": {
    kind: "text",
    fetches: true,
    upstreamModel: "gpt-5-mini",
    start: () => {
      const sim = startOpenAIResponsesUpstream();
      return Promise.resolve(upstreamOf(sim, { base_url: sim.baseUrl, keys: "sk-upstream-test" }));
    },
  },
  "anthropic": {
    kind: "text",
    fetches: true,
    upstreamModel: "claude-sonnet-4-5",
    start: () => {
      const sim = startAnthropicUpstream();
      return Promise.resolve(
        upstreamOf(sim, { base_url: sim.baseUrl, keys: "sk-ant-upstream-test" }),
      );
    },
  },
  "gemini": {
    kind: "text",
    fetches: true,
    upstreamModel: "gemini-2.5-flash",
    start: () => {
      const sim = startGeminiUpstream();
      return Promise.resolve(
        upstreamOf(sim, { base_url: sim.baseUrl, keys: "gemini-upstream-test" }),
      );
    },
  },
  "openai-images": {
    kind: "image",
    fetches: true,
    upstreamModel: "gpt-image-1",
    start: () => {
      const sim = startOpenAIImagesUpstream();
      return Promise.resolve(upstreamOf(sim, { base_url: sim.baseUrl, keys: "sk-upstream-test" }));
    },
  },
  "ark-video": {
    kind: "video",
    fetches: false,
    upstreamModel: "seedance-sim",
    start: () => {
      const sim = startArkVideoUpstream();
      return Promise.resolve(upstreamOf(sim, { base_url: sim.baseUrl, keys: "ark-upstream-test" }));
    },
  },
  "gateway-video": { kind: "video", fetches: false, upstreamModel: "vid-next", start: nextGateway },
  "rerank": {
    kind: "rerank",
    fetches: false,
    upstreamModel: "rerank-sim",
    start: () => {
      const sim = startRerankUpstream();
      return Promise.resolve(upstreamOf(sim, { base_url: sim.baseUrl, keys: "sk-upstream-test" }));
    },
  },
  "azure-openai": {
    kind: "text",
    fetches: false,
    upstreamModel: "chat-prod",
    start: () => {
      const sim = startAzureOpenAIUpstream({ apiKeys: ["azure-key-1"] });
      return Promise.resolve(upstreamOf(sim, {
        base_url: sim.endpoint,
        keys: "azure-key-1",
        url_shape: "deployment",
        api_version: "2024-10-21",
      }));
    },
  },
  "azure-openai-responses": {
    kind: "text",
    fetches: false,
    upstreamModel: "resp-prod",
    start: () => {
      const sim = startAzureOpenAIUpstream({ apiKeys: ["azure-key-1"] });
      return Promise.resolve(upstreamOf(sim, {
        base_url: sim.endpoint,
        keys: "azure-key-1",
        api_version: "2025-04-01-preview",
      }));
    },
  },
  "openai-video": {
    kind: "video",
    fetches: false,
    upstreamModel: "sora-2",
    start: () => {
      const sim = startOpenAIVideoUpstream();
      return Promise.resolve(
        upstreamOf(sim, { base_url: sim.baseUrl, keys: "sora-upstream-test" }),
      );
    },
  },
  "veo": {
    kind: "video",
    fetches: false,
    upstreamModel: "veo-3.0-generate-001",
    start: () => {
      const sim = startVeoUpstream();
      return Promise.resolve(upstreamOf(sim, { base_url: sim.baseUrl, keys: "veo-upstream-test" }));
    },
  },
  "vertex": {
    kind: "text",
    fetches: true,
    upstreamModel: "gemini-2.5-flash",
    start: async () => {
      const sim = await startVertexUpstream();
      return upstreamOf(sim, {
        base_url: sim.baseUrl,
        keys: sim.account.json,
        project: sim.project,
        location: sim.location,
      });
    },
  },
  "bedrock": {
    kind: "text",
    fetches: true,
    upstreamModel: BEDROCK_TEST_MODEL,
    start: () => {
      const sim = startBedrockUpstream();
      return Promise.resolve(upstreamOf(sim, {
        base_url: sim.endpoint,
        keys: `${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`,
        region: sim.region,
        bedrock_auth: "sigv4",
      }));
    },
  },
};

/** The price typed per kind (field id → euros), and the units it is stored as. */
const PRICES: Record<Kind, { plan?: string; fields: Record<string, string>; units: object }> = {
  text: {
    fields: { "text-input": "2000", "text-output": "4000" },
    units: { input: 2_000_000_000, output: 4_000_000_000 },
  },
  image: { fields: { "image-per_image": "0.04" }, units: { per_image: 40_000 } },
  video: {
    plan: "plan-video-per_second",
    fields: { "video-per_second": "0.10" },
    units: { per_second: 100_000 },
  },
  rerank: {
    plan: "plan-rerank-per_search",
    fields: { "rerank-per_search": "0.02" },
    units: { per_search: 20_000 },
  },
};

/** Types whose New channel form is shot: those with fields of their own. */
const SHOT_FORMS: ChannelType[] = ["azure-openai", "vertex", "anthropic", "ark-video"];

async function shoot(watched: WatchedPage, name: string) {
  if (SCREENSHOTS) {
    await watched.page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  }
}

/** Clicks what `click` clicks and waits for a page whose path and query pass `path`. */
async function clickTo(watched: WatchedPage, path: RegExp, click: () => Promise<void>) {
  await Promise.all([
    watched.page.waitForURL((url) => path.test(url.pathname + url.search)),
    click(),
  ]);
}

/** The number on the Overview's tile of enabled models no enabled channel serves. */
async function uncoveredCount(watched: WatchedPage, origin: string): Promise<number> {
  await watched.page.goto(`${origin}/console`);
  return Number(await watched.page.locator("#tile-uncovered .tile-value").textContent());
}

async function hasWarning(watched: WatchedPage): Promise<boolean> {
  const badges = await watched.page.locator(".badge.warn").allTextContents();
  return badges.some((text) => text.includes(WARNING));
}

/** The text of the `<dd>` after the `<dt>` reading `term`. */
function factOf(watched: WatchedPage, term: string): Promise<string> {
  return watched.page.evaluate(`(() => {
    const dt = [...document.querySelectorAll("dt")].find((el) => el.textContent.trim() === ${
    JSON.stringify(term)
  });
    return dt ? dt.nextElementSibling.textContent.trim() : "";
  })()`) as Promise<string>;
}

/** Sets the operator's currency on the Money page. */
async function chooseEuros(watched: WatchedPage, origin: string) {
  const { page } = watched;
  await page.goto(`${origin}/console/money`);
  await page.locator("#currency").selectOption(EUROS.currency);
  await page.locator("#decimals").selectOption(String(EUROS.decimals));
  await clickTo(
    watched,
    /^\/console\/money/,
    () => page.getByRole("button", { name: "Save" }).click(),
  );
  await page.waitForLoadState();
  assertOk(
    (await page.locator("#money-examples").textContent())?.includes("€1.23"),
    "the examples in euros",
  );
}

/** Adds `model` on the Models page, then prices it on its own page. */
async function addAndPrice(watched: WatchedPage, origin: string, model: string, kind: Kind) {
  const { page } = watched;
  const price = PRICES[kind];
  await page.goto(`${origin}/console/models`);
  await page.locator("#add summary").click();
  await page.locator("#add-id").fill(model);
  await page.locator(`#kind-${kind}`).check();
  if (price.plan) await page.locator(`#${price.plan}`).check();
  for (const id of Object.keys(price.fields)) await page.locator(`#${id}`).fill("1");
  await clickTo(
    watched,
    new RegExp(`^/console/models/${model}$`),
    () => page.getByRole("button", { name: "Add model" }).click(),
  );
  // Re-priced in euros on the model's page.
  if (price.plan) await page.locator(`#${price.plan}`).check();
  for (const [id, value] of Object.entries(price.fields)) await page.locator(`#${id}`).fill(value);
  await clickTo(
    watched,
    new RegExp(`^/console/models/${model}$`),
    () => page.getByRole("button", { name: "Save price" }).click(),
  );
  await page.waitForLoadState();
}

/** Makes a `type` channel serving `model` through the New channel form; its id. */
async function createChannel(
  watched: WatchedPage,
  { origin, type, name, model, form, modelMap }: {
    origin: string;
    type: ChannelType;
    name: string;
    model: string;
    form: Record<string, string>;
    modelMap?: string;
  },
): Promise<string> {
  const { page } = watched;
  await page.goto(`${origin}/console/channels/new`);
  await page.locator(`input[name="type"][value="${type}"]`).check();
  await clickTo(
    watched,
    new RegExp(`type=${type}$`),
    () => page.getByRole("button", { name: "Continue" }).click(),
  );
  await page.locator("#name").fill(name);
  for (const [id, value] of Object.entries(form)) {
    const field = page.locator(`#${id}`);
    if (await field.evaluate((el) => el.tagName === "SELECT")) await field.selectOption(value);
    else await field.fill(value);
  }
  await page.locator("#models").fill(model);
  if (modelMap) await page.locator("#model_map").fill(modelMap);
  if (SHOT_FORMS.includes(type)) {
    // The key box holds a secret (a whole JSON key for vertex): not in the picture.
    await page.locator("#keys").fill("");
    await shoot(watched, `channel-new-${type}`);
    await page.locator("#keys").fill(form.keys);
  }
  await clickTo(
    watched,
    /^\/console\/channels\/ch_/,
    () => page.getByRole("button", { name: "Create channel" }).click(),
  );
  return new URL(page.url()).pathname.split("/")[3];
}

/** "Fetch models": the upstream's model ticked and served as `model`, the channel's own not. */
async function fetchAndMap(watched: WatchedPage, { id, model, upstreamModel }: {
  id: string;
  model: string;
  upstreamModel: string;
}) {
  const { page } = watched;
  await clickTo(
    watched,
    /\/models\/fetch$/,
    () => page.getByRole("button", { name: "Fetch models" }).click(),
  );
  await page.getByLabel(`Serve ${model}`, { exact: true }).uncheck();
  await page.getByLabel(`Serve ${upstreamModel}`, { exact: true }).check();
  await page.getByLabel(`Public name of ${upstreamModel}`, { exact: true }).fill(model);
  await clickTo(
    watched,
    new RegExp(`^/console/channels/${id}$`),
    () => page.getByRole("button", { name: "Save models" }).click(),
  );
}

/** A request for `model` as a client of its kind sends it; the request's id. */
async function serve(gw: TestGateway, key: string, kind: Kind, model: string): Promise<string> {
  const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  if (kind === "text") {
    const { data, response } = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "hello from the journey" }],
    }).withResponse();
    assertEquals(data.model, model);
    return response.headers.get("x-request-id")!;
  }
  if (kind === "image") {
    const { data, response } = await client.images.generate({
      model,
      prompt: "a red kite",
      response_format: "b64_json",
    }).withResponse();
    assertEquals(data.data?.length, 1);
    return response.headers.get("x-request-id")!;
  }
  if (kind === "rerank") {
    // Dify's OpenAI-compatible rerank: POST {endpoint}/rerank, Bearer, {model, query, documents}.
    const response = await fetch(`${gw.url}/v1/rerank`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model, query: "kites", documents: ["a kite", "a boat"], top_n: 1 }),
    });
    assertEquals(response.status, 200, await response.clone().text());
    assertEquals((await response.json()).results.length, 1);
    return response.headers.get("x-request-id")!;
  }
  const video = videoClient(gw.url, key);
  const submitted = await video.submit({ model, prompt: "a kite over the sea" });
  const body = await submitted.json();
  assertEquals(submitted.status, 200, JSON.stringify(body));
  const task = await video.waitForTask(body.id);
  assertEquals(task.status, "SUCCESS", JSON.stringify(task));
  return submitted.headers.get("x-request-id")!;
}

chromium.test(
  "console in Chromium: for every channel type, a channel made in the form, its models fetched and priced in euros, a request served, found by name with its receipt in euros, deleted",
  async (path) => {
    const types = Object.keys(PROVIDERS) as ChannelType[];
    assertEquals(
      types.filter((type) => !JOURNEYS[type]),
      [],
      "every channel type of the provider table has a journey",
    );
    await using gw = await startTestGateway(FAST_VIDEO_ENV);
    const { key } = await gw.createKey({ name: "journey app", balance: 100_000_000 });
    await using browser = await launchBrowser(path);
    const watched = await browser.newPage();
    const { page } = watched;
    const origin = gw.url;
    await signIn(watched, { origin, token: ADMIN_TOKEN });
    await chooseEuros(watched, origin);
    const unservedAtStart = await uncoveredCount(watched, origin);

    for (const type of types) {
      const journey = JOURNEYS[type];
      const model = `j-${type}`;
      const name = `journey ${type}`;
      const where = `${type}: `;
      const upstream = await journey.start();
      try {
        await addAndPrice(watched, origin, model, journey.kind);
        assertEquals(
          (await gw.admin("GET", `/admin/models/${model}`)).body.price,
          PRICES[journey.kind].units,
          `${where}the price typed in euros, stored in units`,
        );
        assertOk(await hasWarning(watched), `${where}a new model no channel serves is flagged`);
        assertEquals(await uncoveredCount(watched, origin), unservedAtStart + 1, `${where}count`);

        const listed = journey.fetches;
        assertEquals(PROVIDERS[type].modelList !== undefined, listed, `${where}a model list`);
        const id = await createChannel(watched, {
          origin,
          type,
          name,
          model,
          form: upstream.form,
          modelMap: listed ? undefined : `${model} = ${journey.upstreamModel}`,
        });
        assertEquals(
          await page.getByRole("heading", { level: 1 }).textContent(),
          `Channel ${name}`,
        );
        assertEquals(
          await page.getByRole("button", { name: "Fetch models" }).count(),
          listed ? 1 : 0,
          `${where}Fetch models where the type has a model list`,
        );
        if (listed) {
          await fetchAndMap(watched, { id, model, upstreamModel: journey.upstreamModel });
        }
        const channel = (await gw.admin("GET", `/admin/channels/${id}`)).body;
        assertEquals(
          [channel.type, channel.models, channel.model_map],
          [type, [model], { [model]: journey.upstreamModel }],
          `${where}the channel as made in the console`,
        );
        assertCleanLoad(watched, origin);

        await page.goto(`${origin}/console/models/${model}`);
        assertOk(!(await hasWarning(watched)), `${where}the warning cleared`);
        assertEquals(await uncoveredCount(watched, origin), unservedAtStart, `${where}count`);

        const requestId = await serve(gw, key, journey.kind, model);
        await gw.settle();
        const record = await requestRecord(gw, requestId);
        assertEquals(record.channel_id, id, `${where}served by the new channel`);
        assertOk(record.receipt?.charged > 0, `${where}charged: ${JSON.stringify(record)}`);

        // Found by the channel's name, typed into the picker.
        await page.goto(`${origin}/console/requests`);
        assertEquals(
          await page.locator(`#pick-channel option[value="${name}"]`).count(),
          1,
          `${where}the picker offers the channel by name`,
        );
        await page.getByLabel("Channel", { exact: true }).fill(name);
        await clickTo(
          watched,
          /^\/console\/requests\?/,
          () => page.getByRole("button", { name: "Filter" }).click(),
        );
        const rows = page.locator("table tbody tr");
        if (type === "openai") await shoot(watched, "requests-by-channel-light");
        assertEquals(await rows.count(), 1, `${where}one request through the channel`);
        assertOk(
          await rows.locator(`a[href="/console/channels/${id}"]`, { hasText: name }).isVisible(),
          `${where}the channel by name, linked`,
        );
        await clickTo(
          watched,
          new RegExp(`^/console/requests/${requestId}$`),
          () => rows.locator(`a[href="/console/requests/${requestId}"]`).first().click(),
        );
        if (type === "openai") await shoot(watched, "request-euros-light");
        const charged = await factOf(watched, "Charged");
        assertEquals(charged, euros.text(record.receipt.charged), `${where}the receipt`);
        assertOk(charged.includes("€"), `${where}in euros: ${charged}`);
        assertCleanLoad(watched, origin);

        // Deleted with its confirmation, which names the model that stops being served.
        await page.goto(`${origin}/console/channels/${id}`);
        assertOk(
          (await page.locator("#delete-unserved").textContent())?.includes(model),
          `${where}the confirmation names ${model}`,
        );
        await page.locator("#delete-confirm").check();
        await clickTo(
          watched,
          /^\/console\/channels\?deleted=1$/,
          () => page.getByRole("button", { name: "Delete channel" }).click(),
        );
        assertEquals((await gw.admin("GET", `/admin/channels/${id}`)).status, 404);
        await page.goto(`${origin}/console/models/${model}`);
        assertOk(await hasWarning(watched), `${where}unserved again`);
        assertEquals(await uncoveredCount(watched, origin), unservedAtStart + 1, `${where}count`);
        assertCleanLoad(watched, origin);
        // Done with the model: the next journey starts from the same count.
        await gw.admin("DELETE", `/admin/models/${model}`);
      } catch (error) {
        throw new Error(`the ${type} journey: ${(error as Error).message}`, { cause: error });
      } finally {
        await upstream.close();
      }
    }

    // The new pages in both schemes, on a desktop and a phone (pictures only when asked for).
    for (const scheme of ["light", "dark"] as const) {
      for (const [width, suffix] of [[1100, ""], [390, "-phone"]] as const) {
        const other = await browser.newPage({ colorScheme: scheme, width });
        await signIn(other, { origin, token: ADMIN_TOKEN });
        for (
          const [pagePath, name] of [["/console/money", "money"], [
            "/console/search?q=journey",
            "search",
          ]]
        ) {
          await other.page.goto(`${origin}${pagePath}`);
          await shoot(other, `${name}${suffix}-${scheme}`);
        }
        assertCleanLoad(other, origin);
      }
    }
  },
  serverTest,
);

chromium.reportIgnored("tests/e2e/console/browser_channel_journey_test.ts");
