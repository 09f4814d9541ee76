/**
 * The console's channel pages over HTTP, against simulated upstreams of every channel type:
 * New channel (the type picker and each type's own fields), Clone (the source's keys kept on the
 * server), Edit (model map, keys added or replaced), Fetch models with a model map saved, Test
 * every model in place, bulk Disable/Enable, Delete naming the models that stop being served;
 * bad input answered with the form and the API's message; every change audited as the console
 * session's, never with a key; a key holder and a member refused.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  ADMIN_TOKEN,
  serverTest,
  startTestGateway,
  type TestGateway,
} from "../../helpers/gateway.ts";
import { type ConsoleClient, consoleClient } from "../../helpers/console_client.ts";
import { holderSession, memberSession } from "../../helpers/console_roles.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import { startOpenAIResponsesUpstream } from "../../upstream/openai_responses.ts";
import { startAnthropicUpstream } from "../../upstream/anthropic.ts";
import { startGeminiUpstream } from "../../upstream/gemini.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";
import { startArkVideoUpstream } from "../../upstream/ark_video.ts";

const OPENAI_KEY = "sk-upstream-test";

async function operator(gw: TestGateway): Promise<ConsoleClient> {
  const client = consoleClient(gw.url);
  await (await client.signIn(ADMIN_TOKEN)).body?.cancel();
  return client;
}

/** Posts the New channel form; answers the new channel's id (from the redirect). */
async function createThroughForm(
  client: ConsoleClient,
  fields: Record<string, string>,
): Promise<string> {
  const answer = await client.post("/console/channels/new", {
    enabled: "on",
    create_models: "on",
    ...fields,
  });
  const body = await answer.text();
  assertEquals(answer.status, 303, body.match(/role="alert">([^<]*)/)?.[1] ?? body.slice(0, 300));
  const id = answer.headers.get("location")!.match(/^\/console\/channels\/(ch_[\w-]+)$/)?.[1];
  assertOk(id, `redirected to the channel: ${answer.headers.get("location")}`);
  return id!;
}

async function page(client: ConsoleClient, path: string, fields?: Record<string, string>) {
  const answer = fields ? await client.post(path, fields) : await client.get(path);
  return {
    status: answer.status,
    html: await answer.text(),
    location: answer.headers.get("location"),
  };
}

/** The simulators of every channel type, and where each one's channel points. */
function upstreams(stack: AsyncDisposableStack) {
  return {
    openai: stack.use(startOpenAIChatUpstream()),
    responses: stack.use(startOpenAIResponsesUpstream()),
    anthropic: stack.use(startAnthropicUpstream()),
    gemini: stack.use(startGeminiUpstream()),
    images: stack.use(startOpenAIImagesUpstream()),
    ark: stack.use(startArkVideoUpstream()),
  };
}

Deno.test(
  "console channels: a channel of every type made through its own form; the picker lists every type",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const gw = stack.use(await startTestGateway());
    const up = upstreams(stack);
    const client = await operator(gw);

    const picker = await page(client, "/console/channels/new");
    assertEquals(picker.status, 200);
    for (
      const type of [
        "openai",
        "openai-responses",
        "anthropic",
        "gemini",
        "openai-images",
        "ark-video",
        "gateway-video",
      ]
    ) {
      assertOk(picker.html.includes(`value="${type}"`), `the picker offers ${type}`);
    }
    const anthropicForm = await page(client, "/console/channels/new?type=anthropic");
    assertOk(anthropicForm.html.includes('name="anthropic_version"'), "anthropic's own field");
    assertOk(!anthropicForm.html.includes('name="video_resolution"'), "no video field");
    const arkForm = await page(client, "/console/channels/new?type=ark-video");
    assertOk(arkForm.html.includes('name="video_resolution"'), "a video type's own field");
    assertOk(!arkForm.html.includes('name="anthropic_version"'), "no anthropic field");
    assertOk(arkForm.html.includes("https://ark.cn-beijing.volces.com/api/v3"), "its URL form");

    const made: Array<[string, Record<string, string>]> = [
      ["openai", { base_url: up.openai.baseUrl, keys: OPENAI_KEY, models: "c-openai" }],
      [
        "openai-responses",
        { base_url: up.responses.baseUrl, keys: OPENAI_KEY, models: "c-responses" },
      ],
      ["anthropic", {
        base_url: up.anthropic.baseUrl,
        keys: "sk-ant-upstream-test",
        models: "c-claude",
        model_map: "c-claude = claude-sonnet-4-5",
        anthropic_version: "2023-06-01",
        anthropic_betas_allow: "context-management-*, files-api-2025-04-14",
      }],
      ["gemini", { base_url: up.gemini.baseUrl, keys: "gemini-upstream-test", models: "c-gemini" }],
      ["openai-images", { base_url: up.images.baseUrl, keys: OPENAI_KEY, models: "c-image" }],
      ["ark-video", {
        base_url: up.ark.baseUrl,
        keys: "ark-upstream-test",
        models: "c-video",
        video_resolution: "720p",
      }],
      ["gateway-video", { base_url: `${gw.url}/v1`, keys: "sk-gw-other", models: "c-video-2" }],
    ];
    for (const [type, fields] of made) {
      const id = await createThroughForm(client, { type, name: `my ${type}`, ...fields });
      const channel = (await gw.admin("GET", `/admin/channels/${id}`)).body;
      assertEquals(
        [channel.type, channel.name, channel.models, channel.key_count, channel.enabled],
        [type, `my ${type}`, [fields.models], 1, true],
      );
      const detail = await page(client, `/console/channels/${id}`);
      assertEquals(detail.status, 200);
      assertOk(!detail.html.includes(fields.keys), "the key is never shown");
      if (type === "anthropic") {
        assertEquals(channel.model_map, { "c-claude": "claude-sonnet-4-5" });
        assertEquals(channel.anthropic_version, "2023-06-01");
        assertEquals(channel.anthropic_betas, {
          allow: ["context-management-*", "files-api-2025-04-14"],
        });
      }
      if (type === "ark-video") assertEquals(channel.video_resolution, "720p");
      const kind = type === "openai-images" ? "image" : type.endsWith("video") ? "video" : "text";
      assertEquals((await gw.admin("GET", `/admin/models/${fields.models}`)).body.kind, kind);
    }
    const audit = (await gw.admin("GET", "/admin/audit?actor=console&target_kind=channel")).body
      .data;
    assertEquals(audit.length, made.length);
    for (const record of audit) {
      assertEquals([record.route, record.method], ["/admin/channels", "POST"]);
      assertOk(/^console:[0-9a-f]{16}$/.test(record.actor), record.actor);
      for (const [, fields] of made) {
        assertOk(!JSON.stringify(record).includes(fields.keys), "no key in the audit");
      }
    }
  },
);

Deno.test(
  "console channels: Fetch models lists the upstream's models, a model map is saved, and Test every model shows a row per model",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const gw = stack.use(await startTestGateway());
    const up = upstreams(stack);
    const client = await operator(gw);

    const cases = [
      {
        type: "openai",
        base_url: up.openai.baseUrl,
        keys: OPENAI_KEY,
        listed: ["gpt-4o-mini", "gpt-4o", "o4-mini"],
      },
      {
        type: "anthropic",
        base_url: up.anthropic.baseUrl,
        keys: "sk-ant-upstream-test",
        listed: ["claude-sonnet-4-5", "claude-haiku-4-5"],
      },
      {
        type: "gemini",
        base_url: up.gemini.baseUrl,
        keys: "gemini-upstream-test",
        listed: ["gemini-2.5-flash", "gemini-2.5-flash-image"],
      },
      {
        type: "openai-images",
        base_url: up.images.baseUrl,
        keys: OPENAI_KEY,
        listed: ["gpt-image-1", "dall-e-3"],
      },
    ];
    for (const { type, base_url, keys, listed } of cases) {
      const id = await createThroughForm(client, {
        type,
        name: `fetch ${type}`,
        base_url,
        keys,
        models: `first-${type}`,
      });
      const fetched = await page(client, `/console/channels/${id}/models/fetch`, {});
      assertEquals(fetched.status, 200);
      assertOk(
        fetched.html.includes(`The upstream lists ${listed.length} models.`),
        `${type}: ${fetched.html.match(/role="(?:alert|status)"[^>]*>([^<]*)/)?.[1]}`,
      );
      for (const model of listed) assertOk(fetched.html.includes(`<code>${model}</code>`), model);
      assertOk(!fetched.html.includes("text-embedding-004"), "only generate-content models");
      assertOk(!fetched.html.includes(keys), "the key is not shown");
      // The channel's own model, not in the upstream's list, is row 0; the listed ones follow.
      assertOk(
        fetched.html.includes("not in the upstream&#39;s list") ||
          fetched.html.includes("not in the upstream's list"),
      );
      const saved = await client.post(`/console/channels/${id}/models`, {
        "upstream.0": `first-${type}`,
        "public.0": `first-${type}`,
        "listed.0": "0",
        "upstream.1": listed[0],
        "public.1": `pub-${type}`,
        "listed.1": "1",
        "upstream.2": listed[1],
        "public.2": listed[1],
        "listed.2": "1",
        serve: "1",
        create_models: "on",
      });
      await saved.body?.cancel();
      assertEquals(saved.status, 303);
      // Two ticked: the form sends `serve` twice.
      const both = await fetch(`${gw.url}/console/channels/${id}/models`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: gw.url,
          cookie: client.cookie,
        },
        body: new URLSearchParams([
          ["csrf", await client.csrf()],
          ["upstream.0", listed[0]],
          ["public.0", `pub-${type}`],
          ["upstream.1", listed[1]],
          ["public.1", listed[1]],
          ["serve", "0"],
          ["serve", "1"],
          ["create_models", "on"],
        ]),
      });
      await both.body?.cancel();
      assertEquals(both.status, 303);
      const channel = (await gw.admin("GET", `/admin/channels/${id}`)).body;
      assertEquals(channel.models, [`pub-${type}`, listed[1]]);
      assertEquals(channel.model_map, { [`pub-${type}`]: listed[0] });

      const tested = await page(client, `/console/channels/${id}/test-all`, {});
      assertEquals(tested.status, 200);
      assertOk(tested.html.includes("2 models tested: all passed."), `${type} tested`);
      for (const model of channel.models) {
        assertOk(
          new RegExp(`<code>${model}</code></td><td class="ok">ok</td><td>200</td>`).test(
            tested.html,
          ),
          `${type}: a row for ${model}`,
        );
      }
    }

    // An upstream that refuses the key: said on the page, without the key.
    const wrong = await createThroughForm(client, {
      type: "openai",
      name: "wrong key",
      base_url: up.openai.baseUrl,
      keys: "sk-wrong-upstream-key",
      models: "wrong-model",
    });
    const refused = await page(client, `/console/channels/${wrong}/models/fetch`, {});
    assertOk(refused.html.includes("could not be read (upstream status 401)"), "the refusal");
    assertOk(!refused.html.includes("sk-wrong-upstream-key"), "no key");
    const failedTests = await page(client, `/console/channels/${wrong}/test-all`, {});
    assertOk(failedTests.html.includes("1 model tested: 1 failed."), "the failed test");
    assertOk(failedTests.html.includes('<td class="bad">failed</td><td>401</td>'), "its row");

    // Video types have no list: the page says so and offers no button.
    const ark = await createThroughForm(client, {
      type: "ark-video",
      name: "ark",
      base_url: up.ark.baseUrl,
      keys: "ark-upstream-test",
      models: "ark-model",
    });
    const arkPage = await page(client, `/console/channels/${ark}`);
    assertOk(arkPage.html.includes("An ark-video upstream has no model list to fetch"), "said");
    assertOk(!arkPage.html.includes("Fetch models</button>"), "no button");
    const arkTests = await page(client, `/console/channels/${ark}/test-all`, {});
    assertOk(arkTests.html.includes("1 model tested: all passed."), "the video test");
  },
);

Deno.test(
  "console channels: clone keeps the keys unseen, edit maps and re-keys, bulk disable/enable, delete names the unserved models",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const gw = stack.use(await startTestGateway());
    const up = upstreams(stack);
    const client = await operator(gw);
    const source = await createThroughForm(client, {
      type: "openai",
      name: "primary",
      base_url: up.openai.baseUrl,
      keys: OPENAI_KEY,
      models: "m-one\nm-two",
      model_map: "m-one = gpt-4o-mini",
      priority: "2",
    });
    const sourceView = (await gw.admin("GET", `/admin/channels/${source}`)).body;

    const cloneForm = await page(client, `/console/channels/new?from=${source}`);
    assertEquals(cloneForm.status, 200);
    assertOk(cloneForm.html.includes('value="primary (copy)"'), "named after the source");
    assertOk(
      cloneForm.html.includes("keeps the source&#39;s 1") ||
        cloneForm.html.includes("keeps the source's 1"),
      "says the keys are kept",
    );
    assertOk(cloneForm.html.includes("m-one = gpt-4o-mini"), "the model map");
    assertOk(!cloneForm.html.includes(OPENAI_KEY), "no key in the page");
    const clone = await createThroughForm(client, {
      from: source,
      type: "openai",
      name: "backup",
      base_url: up.openai.baseUrl,
      keys: "",
      models: "m-one\nm-two\nm-three",
      model_map: "m-one = gpt-4o-mini",
    });
    const cloneView = (await gw.admin("GET", `/admin/channels/${clone}`)).body;
    assertEquals(cloneView.keys, sourceView.keys, "the same key, by fingerprint");
    assertEquals(cloneView.model_map, { "m-one": "gpt-4o-mini" });

    const editForm = await page(client, `/console/channels/${clone}/edit`);
    assertOk(editForm.html.includes(sourceView.keys[0].fingerprint), "keys by hint");
    assertOk(!editForm.html.includes(OPENAI_KEY), "never the key");
    const edited = await page(client, `/console/channels/${clone}/edit`, {
      name: "backup 2",
      base_url: up.openai.baseUrl,
      groups: "default, vip",
      priority: "1",
      weight: "4",
      timeout_ms: "30000",
      models: "m-one, m-two, m-three",
      model_map: "m-one = gpt-4o\nm-three = o4-mini",
      keys: "sk-added-upstream-1",
      keys_mode: "add",
      max_retries: "2",
      breaker_enabled: "on",
      breaker_min_failures: "4",
      breaker_cooldowns_ms: "1000, 5000",
    });
    assertEquals(edited.status, 303, edited.html.match(/role="alert">([^<]*)/)?.[1]);
    let view = (await gw.admin("GET", `/admin/channels/${clone}`)).body;
    assertEquals(
      [view.name, view.groups, view.priority, view.weight, view.key_count, view.max_retries],
      ["backup 2", ["default", "vip"], 1, 4, 2, 2],
    );
    assertEquals(view.model_map, { "m-one": "gpt-4o", "m-three": "o4-mini" });
    assertEquals(view.breaker, { enabled: true, min_failures: 4, cooldowns_ms: [1000, 5000] });
    const shown = await page(client, `/console/channels/${clone}/edit`);
    assertOk(shown.html.includes('value="1000, 5000"'), "the breaker as stored");
    await page(client, `/console/channels/${clone}/edit`, {
      keys: "sk-replacing-upstream-2",
      keys_mode: "replace",
    });
    view = (await gw.admin("GET", `/admin/channels/${clone}`)).body;
    assertEquals(view.key_count, 1);
    assertOk(view.keys[0].fingerprint !== sourceView.keys[0].fingerprint, "replaced");

    // Bulk: both off, then both on.
    const off = await page(client, "/console/channels/bulk", {});
    assertEquals(off.status, 400, "nothing ticked");
    const bulk = async (action: string) => {
      const answer = await fetch(`${gw.url}/console/channels/bulk`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: gw.url,
          cookie: client.cookie,
        },
        body: new URLSearchParams([
          ["csrf", await client.csrf()],
          ["id", source],
          ["id", clone],
          ["action", action],
        ]),
      });
      await answer.body?.cancel();
      return answer.status;
    };
    assertEquals(await bulk("disable"), 303);
    for (const id of [source, clone]) {
      assertEquals((await gw.admin("GET", `/admin/channels/${id}`)).body.enabled, false);
    }
    assertEquals(await bulk("enable"), 303);
    for (const id of [source, clone]) {
      assertEquals((await gw.admin("GET", `/admin/channels/${id}`)).body.enabled, true);
    }
    const list = await page(client, "/console/channels");
    assertOk(list.html.includes(`name="id" value="${source}"`), "a box per channel");
    assertOk(list.html.includes('href="/console/channels/new"'), "New channel");

    // Delete: the clone alone serves m-three.
    const detail = await page(client, `/console/channels/${clone}`);
    assertOk(
      /Deleting it stops serving\s*<code>m-three<\/code>: no other enabled channel serves it\./
        .test(detail.html),
      detail.html.match(/id="delete-unserved">([\s\S]*?)<\/p>/)?.[1],
    );
    const unconfirmed = await page(client, `/console/channels/${clone}/delete`, {});
    assertEquals(unconfirmed.status, 400);
    assertOk(unconfirmed.html.includes("Tick the box"), "asks to confirm");
    assertEquals((await gw.admin("GET", `/admin/channels/${clone}`)).status, 200, "still there");
    // With the source disabled, deleting it stops m-one and m-two as well.
    await page(client, `/console/channels/${source}/enabled`, { enabled: "false" });
    const alone = await page(client, `/console/channels/${clone}`);
    assertOk(
      alone.html.includes(
        "Deleting it stops serving <code>m-one</code>, <code>m-two</code>, <code>m-three</code>",
      ),
      alone.html.match(/id="delete-unserved">([\s\S]*?)<\/p>/)?.[1],
    );
    const deleted = await page(client, `/console/channels/${clone}/delete`, { confirm: "on" });
    assertEquals([deleted.status, deleted.location], [303, "/console/channels?deleted=1"]);
    assertEquals((await gw.admin("GET", `/admin/channels/${clone}`)).status, 404);
    const after = await page(client, "/console/channels?deleted=1");
    assertOk(after.html.includes("The channel was deleted."), "said");

    const audit = (await gw.admin("GET", `/admin/audit?target_id=${clone}&actor=console`)).body
      .data;
    const routes = audit.map((record: { method: string; route: string }) =>
      `${record.method} ${record.route}`
    ).sort();
    assertEquals(routes, [
      "DELETE /admin/channels/:id",
      "PATCH /admin/channels/:id",
      "PATCH /admin/channels/:id",
      "PATCH /admin/channels/:id",
      "PATCH /admin/channels/:id",
      "POST /admin/channels",
    ]);
    for (const record of audit) {
      const text = JSON.stringify(record);
      assertOk(!text.includes("sk-added-upstream") && !text.includes(OPENAI_KEY), "no key");
    }
  },
);

Deno.test(
  "console channels: bad input is the form again with the API's message, nothing made",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const gw = stack.use(await startTestGateway());
    const up = upstreams(stack);
    const client = await operator(gw);
    const good = {
      type: "openai",
      name: "typed name",
      base_url: up.openai.baseUrl,
      keys: "sk-typed-secret-1234",
      models: "m-bad",
      create_models: "on",
      enabled: "on",
    };
    const cases: Array<[Record<string, string>, string]> = [
      [{ name: "" }, "name"],
      [{ base_url: `${up.openai.baseUrl}/chat/completions` }, "already ends with"],
      [{ base_url: "ftp://example" }, "base_url"],
      // An openai channel may have no key (a local server); an anthropic one may not.
      [{ type: "anthropic", base_url: up.anthropic.baseUrl, keys: "" }, "upstream key"],
      [{ models: "" }, "models"],
      [{ models: "not-in-catalog", create_models: "" }, "The catalog has no model"],
      [{ model_map: "m-bad gpt-4o" }, "model_map line 1"],
      [{ weight: "0" }, "weight"],
      [{ priority: "high" }, "priority"],
      [{ video_resolution: "9k" }, "video_resolution"],
      [{ breaker_failure_rate: "2" }, "breaker.failure_rate"],
    ];
    for (const [change, message] of cases) {
      const answer = await page(client, "/console/channels/new", { ...good, ...change });
      assertEquals(answer.status, 400, JSON.stringify(change));
      const alert = answer.html.match(/role="alert">([^<]*)/)?.[1] ?? "";
      assertOk(alert.includes(message), `${JSON.stringify(change)}: ${alert}`);
      assertOk(!answer.html.includes("sk-typed-secret-1234"), "the key is not put back");
      if (change.name === undefined) {
        assertOk(answer.html.includes('value="typed name"'), "what was typed is kept");
      }
    }
    const badType = await page(client, "/console/channels/new", { ...good, type: "nope" });
    assertEquals(badType.status, 400);
    assertOk(badType.html.includes('role="alert"'), "said");
    assertEquals((await gw.admin("GET", "/admin/channels")).body.data, [], "nothing made");

    const id = await createThroughForm(client, { ...good, models: "m-ok" });
    const before = (await gw.admin("GET", `/admin/channels/${id}`)).body;
    const badEdit = await page(client, `/console/channels/${id}/edit`, {
      name: "edited",
      groups: "",
      keys: "sk-edit-secret-5678",
    });
    assertEquals(badEdit.status, 400);
    assertOk(badEdit.html.includes('value="edited"'), "typed values kept");
    assertOk(!badEdit.html.includes("sk-edit-secret-5678"), "no key");
    assertOk(
      badEdit.html.includes("Type the new upstream keys again"),
      "says why the box is empty",
    );
    const badSave = await page(client, `/console/channels/${id}/models`, {
      "upstream.0": "gpt-4o",
      "public.0": "not-in-catalog-2",
      serve: "0",
    });
    assertEquals(badSave.status, 400);
    assertOk(badSave.html.includes("The catalog has no model"), "the API's message");
    assertOk(badSave.html.includes('value="not-in-catalog-2"'), "the picks kept");
    assertEquals(
      (await gw.admin("GET", `/admin/channels/${id}`)).body.updated_at,
      before.updated_at,
    );
  },
);

Deno.test(
  "console channels: a key holder and a member are refused every channel form; so is a post without the CSRF token or from another origin",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const gw = stack.use(await startTestGateway());
    const up = upstreams(stack);
    const id = (await gw.addChannel({
      name: "theirs",
      type: "openai",
      base_url: up.openai.baseUrl,
      keys: [OPENAI_KEY],
      models: ["m-x"],
      create_models: true,
    })).id;
    const holder = await holderSession(gw);
    const member = await memberSession(gw, "member@example.test");
    const gets = ["/console/channels/new", `/console/channels/${id}/edit`];
    const posts = [
      "/console/channels/new",
      "/console/channels/bulk",
      `/console/channels/${id}/edit`,
      `/console/channels/${id}/models/fetch`,
      `/console/channels/${id}/models`,
      `/console/channels/${id}/test-all`,
      `/console/channels/${id}/delete`,
    ];
    for (
      const [who, client, post] of [
        [
          "holder",
          holder,
          (path: string, fields: Record<string, string>) => holder.post(path, fields),
        ],
        [
          "member",
          member,
          (path: string, fields: Record<string, string>) => member.postMember(path, fields),
        ],
      ] as const
    ) {
      for (const path of gets) {
        const answer = await client.get(path);
        await answer.body?.cancel();
        assertEquals(answer.status, 403, `${who} GET ${path}`);
      }
      for (const path of posts) {
        const answer = await post(path, {
          type: "openai",
          name: "x",
          base_url: up.openai.baseUrl,
          keys: "k",
          models: "m-x",
          id,
          action: "disable",
          confirm: "on",
        });
        await answer.body?.cancel();
        assertEquals(answer.status, 403, `${who} POST ${path}`);
      }
    }
    // The operator's own session, without the CSRF token or from another origin: refused too.
    const operatorClient = await operator(gw);
    for (const path of posts) {
      for (const options of [{ csrf: null }, { origin: "https://evil.example" }]) {
        const answer = await operatorClient.post(path, {
          type: "openai",
          name: "x",
          base_url: up.openai.baseUrl,
          keys: "k",
          models: "m-x",
          id,
          action: "disable",
          confirm: "on",
        }, options);
        await answer.body?.cancel();
        assertEquals(answer.status, 403, `${JSON.stringify(options)} POST ${path}`);
      }
    }
    const channels = (await gw.admin("GET", "/admin/channels")).body.data;
    assertEquals(channels.map((channel: { enabled: boolean }) => channel.enabled), [true]);
    assertEquals(up.openai.requests.length, 0, "no upstream call");
  },
);

Deno.test(
  "console channels: a channel the config file manages is refused by name (bulk, edit, delete) while the others change",
  serverTest,
  async () => {
    await using stack = new AsyncDisposableStack();
    const dir = await Deno.makeTempDir({ prefix: "gateway-config-" });
    stack.defer(() => Deno.remove(dir, { recursive: true }).catch(() => {}));
    const up = upstreams(stack);
    const configPath = `${dir}/gateway.json`;
    await Deno.writeTextFile(
      configPath,
      JSON.stringify({
        models: { "cfg-model": { kind: "text", price: { input: 1, output: 2 } } },
        channels: [{
          id: "cfg-channel",
          name: "From the config file",
          type: "openai",
          base_url: up.openai.baseUrl,
          keys: [OPENAI_KEY],
          models: ["cfg-model"],
        }],
      }),
    );
    const gw = stack.use(await startTestGateway({ GATEWAY_CONFIG: configPath }));
    const client = await operator(gw);
    const own = await createThroughForm(client, {
      type: "openai",
      name: "own",
      base_url: up.openai.baseUrl,
      keys: OPENAI_KEY,
      models: "cfg-model",
    });
    const answer = await fetch(`${gw.url}/console/channels/bulk`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: gw.url,
        cookie: client.cookie,
      },
      body: new URLSearchParams([
        ["csrf", await client.csrf()],
        ["id", "cfg-channel"],
        ["id", own],
        ["action", "disable"],
      ]),
    });
    const html = await answer.text();
    assertEquals(answer.status, 409);
    assertOk(html.match(/role="alert">[^<]*cfg-channel/), "the refused channel is named");
    assertEquals((await gw.admin("GET", `/admin/channels/${own}`)).body.enabled, false);
    assertEquals((await gw.admin("GET", "/admin/channels/cfg-channel")).body.enabled, true);

    const edit = await page(client, "/console/channels/cfg-channel/edit", { name: "renamed" });
    assertEquals(edit.status, 409);
    assertOk(edit.html.includes("managed by"), "said");
    const deleted = await page(client, "/console/channels/cfg-channel/delete", { confirm: "on" });
    assertEquals(deleted.status, 409);
    assertEquals((await gw.admin("GET", "/admin/channels/cfg-channel")).status, 200, "kept");
  },
);
