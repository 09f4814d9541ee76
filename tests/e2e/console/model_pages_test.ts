/**
 * The console's model pages over HTTP: Add a model with its price typed in currency (exact
 * units), re-price, groups, disable, delete (a built-in one stays deleted), image tiers and both
 * video plans, bad input shown on the form with nothing changed, the channels serving each model
 * with the warning for an enabled model no enabled channel serves (and the Overview's count),
 * audit records, and key holders and members refused.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { type ConsoleClient } from "../../helpers/console_client.ts";
import { holderSession, memberSession, operatorSession } from "../../helpers/console_roles.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";

const TEXT_FORM = {
  kind: "text",
  "text.plan": "tokens",
  groups: "default",
  enabled: "true",
};

async function post(client: ConsoleClient, path: string, fields: Record<string, string>) {
  const response = await client.post(path, fields);
  return {
    status: response.status,
    location: response.headers.get("location"),
    html: await response.text(),
  };
}

async function html(client: ConsoleClient, path: string): Promise<string> {
  const response = await client.get(path);
  assertEquals(response.status, 200, path);
  return await response.text();
}

/** The `<tr>` of model `id` on the Models page. */
function rowOf(page: string, id: string): string {
  const start = page.indexOf(`<tr id="model-${id}">`);
  assertOk(start >= 0, `a row for ${id}`);
  return page.slice(start, page.indexOf("</tr>", start));
}

/** The number on the Overview's unserved-models tile. */
async function uncoveredCount(client: ConsoleClient): Promise<number> {
  const page = await html(client, "/console");
  const tile = page.slice(page.indexOf('id="tile-uncovered"'));
  assertOk(tile.includes('href="/console/models?coverage=uncovered"'), "links to the list");
  return Number(tile.match(/class="tile-value[^"]*">(\d+)</)![1]);
}

Deno.test(
  "console model pages: add a text model priced in currency (0.15 / 0.60 → 150000 / 600000 units), re-price, groups, disable, delete; each audited",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = await operatorSession(s.gw);
    const added = await post(client, "/console/models", {
      ...TEXT_FORM,
      id: "gpt-mini",
      "text.input": "0.15",
      "text.output": "0.60",
      description: "A small one",
    });
    assertEquals([added.status, added.location], [303, "/console/models/gpt-mini"]);
    const stored = (await s.gw.admin("GET", "/admin/models/gpt-mini")).body;
    assertEquals(stored.price, { input: 150_000, output: 600_000 });
    assertEquals([stored.kind, stored.groups, stored.enabled], ["text", ["default"], true]);
    assertEquals(stored.description, "A small one");

    const page = await html(client, "/console/models/gpt-mini");
    assertOk(
      page.includes("input $0.150000, cached $0.150000, output $0.600000 per million tokens"),
    );
    assertOk(page.includes('name="text.input" type="text" value="0.15"'), "the form in currency");
    assertOk(page.includes('label for="text-input">Input (USD per 1M tokens)'), "the unit");

    const repriced = await post(client, "/console/models/gpt-mini/price", {
      kind: "text",
      "text.plan": "tokens",
      "text.input": "0.2",
      "text.cached_input": "0.05",
      "text.output": "0.8",
    });
    assertEquals([repriced.status, repriced.location], [303, "/console/models/gpt-mini"]);
    assertEquals((await s.gw.admin("GET", "/admin/models/gpt-mini")).body.price, {
      input: 200_000,
      cached_input: 50_000,
      output: 800_000,
    });

    const grouped = await post(client, "/console/models/gpt-mini/groups", {
      groups: "default, vip",
    });
    assertEquals(grouped.status, 303);
    assertEquals((await s.gw.admin("GET", "/admin/models/gpt-mini")).body.groups, [
      "default",
      "vip",
    ]);

    const off = await post(client, "/console/models/gpt-mini/enabled", {
      enabled: "false",
      next: "detail",
    });
    assertEquals([off.status, off.location], [303, "/console/models/gpt-mini"]);
    assertEquals((await s.gw.admin("GET", "/admin/models/gpt-mini")).body.enabled, false);

    const unconfirmed = await post(client, "/console/models/gpt-mini/delete", {});
    assertEquals(unconfirmed.status, 400);
    assertOk(unconfirmed.html.includes("to confirm the deletion"));
    assertEquals((await s.gw.admin("GET", "/admin/models/gpt-mini")).status, 200, "still there");
    const deleted = await post(client, "/console/models/gpt-mini/delete", { confirm: "gpt-mini" });
    assertEquals([deleted.status, deleted.location], [303, "/console/models"]);
    assertEquals((await s.gw.admin("GET", "/admin/models/gpt-mini")).status, 404);
    const gone = await client.get("/console/models/gpt-mini");
    await gone.body?.cancel();
    assertEquals(gone.status, 404);

    // A built-in model is marked deleted, as DELETE /admin/models/{id} does: it stays gone.
    const builtIn = await post(client, "/console/models/vid-2-cheap/delete", {
      confirm: "vid-2-cheap",
    });
    assertEquals(builtIn.status, 303);
    assertEquals((await s.gw.admin("GET", "/admin/models/vid-2-cheap")).status, 404);
    const list = (await s.gw.admin("GET", "/admin/models")).body.data as Array<{ id: string }>;
    assertOk(!list.some((model) => model.id === "vid-2-cheap"));
    assertOk(!(await html(client, "/console/models")).includes("<code>vid-2-cheap</code>"));

    // A model a channel lists is not deleted: the API's 409, on the page, naming the channel.
    const inUse = await post(client, `/console/models/${MODEL}/delete`, { confirm: MODEL });
    assertEquals(inUse.status, 409);
    assertOk(inUse.html.includes("serve it; remove it from their models"), "the API's message");
    assertEquals((await s.gw.admin("GET", `/admin/models/${MODEL}`)).status, 200);

    const audit = (await s.gw.admin("GET", "/admin/audit?target_kind=model&actor=console")).body
      .data as Array<
        { method: string; route: string; status: number; target: { id: string }; after: unknown }
      >;
    assertEquals(
      audit.map((record) => [record.method, record.route, record.target.id, record.status])
        .reverse(),
      [
        ["PUT", "/admin/models/:id", "gpt-mini", 200],
        ["PATCH", "/admin/models/:id", "gpt-mini", 200],
        ["PATCH", "/admin/models/:id", "gpt-mini", 200],
        ["PATCH", "/admin/models/:id", "gpt-mini", 200],
        ["DELETE", "/admin/models/:id", "gpt-mini", 204],
        ["DELETE", "/admin/models/:id", "vid-2-cheap", 204],
        ["DELETE", "/admin/models/:id", MODEL, 409],
      ],
    );
    assertEquals((audit.at(-1)!.after as { price: unknown }).price, {
      input: 150_000,
      output: 600_000,
    });
  },
);

Deno.test(
  "console model pages: an image model with size/quality tiers, a per-second and a per-task video model, priced in currency",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = await operatorSession(s.gw);
    const image = await post(client, "/console/models", {
      id: "img-tiers",
      kind: "image",
      "image.plan": "per_image",
      "image.per_image": "0.04",
      "image.tier_size.0": "1024x1024",
      "image.tier_quality.0": "high",
      "image.tier_price.0": "0.08",
      "image.tier_size.1": "",
      "image.tier_quality.1": "low",
      "image.tier_price.1": "0.015",
      "image.tier_size.2": "",
      "image.tier_quality.2": "",
      "image.tier_price.2": "",
      groups: "default",
      enabled: "true",
    });
    assertEquals(image.status, 303);
    assertEquals((await s.gw.admin("GET", "/admin/models/img-tiers")).body.price, {
      per_image: 40_000,
      tiers: { "1024x1024/high": 80_000, "*/low": 15_000 },
    });
    const detail = await html(client, "/console/models/img-tiers");
    assertOk(detail.includes("$0.040000 per image; 1024x1024/high $0.080000; */low $0.015000"));
    assertOk(detail.includes('name="image.tier_price.1" type="text" value="0.015"'));
    const billed = await html(
      client,
      "/console/models?model=img-tiers&images=2&size=1024x1024&quality=high",
    );
    assertOk(billed.includes("2 images × 80000 = 160000"), "the tier bills");

    const perSecond = await post(client, "/console/models", {
      id: "vid-sec",
      kind: "video",
      "video.plan": "per_second",
      "video.per_second": "0.125",
      groups: "default",
      enabled: "true",
    });
    assertEquals(perSecond.status, 303);
    assertEquals((await s.gw.admin("GET", "/admin/models/vid-sec")).body.price, {
      per_second: 125_000,
    });
    assertOk((await html(client, "/console/models")).includes("$0.125000 per second"));

    const perTask = await post(client, "/console/models", {
      id: "vid-task",
      kind: "video",
      "video.plan": "per_task",
      "video.per_task": "1.5",
      "video.failure_refund_percent": "40",
      groups: "default",
      enabled: "true",
    });
    assertEquals(perTask.status, 303);
    assertEquals((await s.gw.admin("GET", "/admin/models/vid-task")).body.price, {
      per_task: 1_500_000,
      failure_refund_percent: 40,
    });
    const taskPage = await html(client, "/console/models/vid-task");
    assertOk(taskPage.includes("$1.500000 per task"));
    assertOk(/id="plan-video-per_task" value="per_task" checked/.test(taskPage), "its plan");

    // The price form changes the plan: per task to per second.
    const replanned = await post(client, "/console/models/vid-task/price", {
      kind: "video",
      "video.plan": "per_second",
      "video.per_second": "0.2",
      "video.per_task": "1.5",
    });
    assertEquals(replanned.status, 303);
    assertEquals((await s.gw.admin("GET", "/admin/models/vid-task")).body.price, {
      per_second: 200_000,
    });
  },
);

Deno.test(
  "console model pages: 7 decimals, a negative or text price, an unknown kind, a taken id: the form again with the message, nothing changed",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = await operatorSession(s.gw);
    const before = (await s.gw.admin("GET", "/admin/models")).body.data;
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ "text.input": "0.1234567", "text.output": "1" }, 400, "more than 6 decimals"],
      [{ "text.input": "-0.15", "text.output": "1" }, 400, "must not be negative"],
      [{ "text.input": "cheap", "text.output": "1" }, 400, "must be an amount like 0.15"],
      [{ "text.input": "1" }, 400, "Output (per 1M tokens) is required"],
      [{ kind: "sound", "text.input": "1", "text.output": "1" }, 400, "The kind must be one of"],
      [{ id: MODEL, "text.input": "1", "text.output": "1" }, 409, "already"],
      [{ id: "has space", "text.input": "1", "text.output": "1" }, 400, "without spaces"],
      [{ id: "", "text.input": "1", "text.output": "1" }, 400, "The model id is required"],
    ];
    for (const [fields, status, message] of cases) {
      const refused = await post(client, "/console/models", {
        ...TEXT_FORM,
        id: "gpt-bad",
        ...fields,
      });
      assertEquals(refused.status, status, message);
      assertOk(refused.html.includes('role="alert"'), message);
      assertOk(refused.html.includes(message), message);
      assertOk(refused.html.includes('<details id="add" open'), "the form is open again");
      if (fields.id === undefined) {
        assertOk(refused.html.includes('value="gpt-bad"'), "what was typed stays");
      }
    }
    const repriced = await post(client, `/console/models/${MODEL}/price`, {
      kind: "text",
      "text.plan": "tokens",
      "text.input": "0.0000001",
      "text.output": "1",
    });
    assertEquals(repriced.status, 400);
    assertOk(repriced.html.includes("more than 6 decimals"));
    assertOk(repriced.html.includes('value="0.0000001"'), "what was typed stays");
    assertEquals((await s.gw.admin("GET", "/admin/models")).body.data, before, "nothing changed");
    const audit = await s.gw.admin("GET", "/admin/audit?target_kind=model&actor=console");
    // The taken id is refused before any write: no change was tried, so none is recorded.
    assertEquals(audit.body.data, []);
  },
);

Deno.test(
  "console model pages: served by lists the channels; an enabled model no enabled channel serves is flagged and counted on the Overview, until a channel serves it, and again when that channel is disabled",
  serverTest,
  async () => {
    await using s = await setupChat();
    const client = await operatorSession(s.gw);
    const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    const served = rowOf(await html(client, "/console/models"), MODEL);
    assertOk(served.includes(`<a href="/console/channels/${channel.id}">primary</a>`));
    assertOk(!served.includes("no enabled channel serves it"));
    const baseline = await uncoveredCount(client);

    await post(client, "/console/models", {
      ...TEXT_FORM,
      id: "gpt-lonely",
      "text.input": "1",
      "text.output": "2",
    });
    const lonely = rowOf(await html(client, "/console/models"), "gpt-lonely");
    assertOk(lonely.includes("no channel"));
    assertOk(
      lonely.includes('class="badge warn"') && lonely.includes("no enabled channel serves it"),
    );
    assertOk(
      (await html(client, "/console/models/gpt-lonely")).includes("no enabled channel serves it"),
    );
    assertEquals(await uncoveredCount(client), baseline + 1);
    const filtered = await html(client, "/console/models?coverage=uncovered");
    assertOk(filtered.includes('<tr id="model-gpt-lonely">'));
    assertOk(!filtered.includes(`<tr id="model-${MODEL}">`), "a served model is not listed");

    const patched = await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, {
      models: [MODEL, "gpt-lonely"],
    });
    assertEquals(patched.status, 200);
    const covered = rowOf(await html(client, "/console/models"), "gpt-lonely");
    assertOk(covered.includes(`<a href="/console/channels/${channel.id}">primary</a>`));
    assertOk(!covered.includes("no enabled channel serves it"), "the warning cleared");
    assertEquals(await uncoveredCount(client), baseline);
    assertOk(
      !(await html(client, "/console/models?coverage=uncovered")).includes("model-gpt-lonely"),
    );

    await s.gw.admin("PATCH", `/admin/channels/${channel.id}`, { enabled: false });
    const again = rowOf(await html(client, "/console/models"), "gpt-lonely");
    assertOk(again.includes("primary</a>") && again.includes("(disabled)"));
    assertOk(again.includes("no enabled channel serves it"), "the warning is back");
    assertEquals(await uncoveredCount(client), baseline + 2, `${MODEL} too`);

    // A disabled model is not flagged: nobody is promised it.
    await post(client, "/console/models/gpt-lonely/enabled", { enabled: "false" });
    assertOk(!rowOf(await html(client, "/console/models"), "gpt-lonely").includes("badge warn"));
    assertEquals(await uncoveredCount(client), baseline + 1);
  },
);

Deno.test(
  "console model pages: key holders and members are refused every model page and change (403), and a form without the session's CSRF token",
  serverTest,
  async () => {
    await using s = await setupChat();
    const operator = await operatorSession(s.gw);
    const holder = await holderSession(s.gw);
    const member = await memberSession(s.gw, "models@example.com");
    for (const client of [holder, member]) {
      for (const path of ["/console/models", `/console/models/${MODEL}`]) {
        const response = await client.get(path);
        await response.body?.cancel();
        assertEquals(response.status, 403, path);
      }
    }
    const changes: Array<[string, Record<string, string>]> = [
      ["/console/models", { ...TEXT_FORM, id: "gpt-x", "text.input": "0", "text.output": "0" }],
      [`/console/models/${MODEL}/price`, { kind: "text", "text.input": "0", "text.output": "0" }],
      [`/console/models/${MODEL}/groups`, { groups: "vip" }],
      [`/console/models/${MODEL}/enabled`, { enabled: "false" }],
      [`/console/models/${MODEL}/delete`, { confirm: MODEL }],
    ];
    for (const [path, fields] of changes) {
      const forged = await operator.post(path, fields, { csrf: "not-the-session-token" });
      await forged.body?.cancel();
      assertEquals(forged.status, 403, `${path} without the CSRF token`);
      const byHolder = await holder.post(path, fields);
      await byHolder.body?.cancel();
      assertEquals(byHolder.status, 403, path);
      const byMember = await member.postMember(path, fields);
      await byMember.body?.cancel();
      assertEquals(byMember.status, 403, path);
    }
    const model = (await s.gw.admin("GET", `/admin/models/${MODEL}`)).body;
    assertEquals([model.enabled, model.groups], [true, ["default"]]);
    assertEquals((await s.gw.admin("GET", "/admin/models/gpt-x")).status, 404);
  },
);
