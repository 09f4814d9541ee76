/**
 * The operator's global search over HTTP against a real gateway: the box in the top bar, an exact
 * id (key, account, request, channel) answered 303 to its page, a name or a key's visible prefix
 * answered with a page of matches by kind, an empty, overlong or secret-shaped query a 400 that
 * never echoes the secret, and no search for key holders or members. A task found by its id names
 * its key and channel.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { memberSession, operatorSession } from "../../helpers/console_roles.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";
import { IMAGE_MODEL, setupImages } from "../../helpers/image_setup.ts";

async function page(response: Promise<Response>) {
  const answer = await response;
  return {
    status: answer.status,
    location: answer.headers.get("location"),
    html: await answer.text(),
  };
}

const search = (q: string) => `/console/search?q=${encodeURIComponent(q)}`;

Deno.test(
  "console search: exact ids go to their page, names and prefixes list matches by kind",
  serverTest,
  async () => {
    await using s = await setupChat();
    const account = (await s.gw.admin("POST", "/admin/accounts", {
      name: "Acme Corp",
      balance: 1_000_000,
    })).body;
    const alice = await s.gw.createKey({ name: "alice-prod", account_id: account.id });
    const aliceView = (await s.gw.admin("GET", `/admin/keys/${alice.id}`)).body;
    const asked = await postJson(s.gw, "/v1/chat/completions", alice.key, {
      model: MODEL,
      messages: [{ role: "user", content: "hi" }],
    });
    await asked.body?.cancel();
    const requestId = asked.headers.get("x-request-id")!;
    await s.gw.settle();
    const channel = (await s.gw.admin("GET", "/admin/channels")).body.data[0];
    const client = await operatorSession(s.gw);

    const overview = await page(client.get("/console/keys"));
    assertOk(overview.html.includes('action="/console/search"'), "the box in the top bar");

    for (
      const [q, to] of [
        [alice.id, `/console/keys/${alice.id}`],
        [account.id, `/console/accounts/${account.id}`],
        [requestId, `/console/requests/${requestId}`],
        [channel.id, `/console/channels/${channel.id}`],
        [` ${alice.id} `, `/console/keys/${alice.id}`],
      ]
    ) {
      const found = await page(client.get(search(q)));
      assertEquals([found.status, found.location], [303, to], q);
    }

    const byName = await page(client.get(search("ALICE")));
    assertEquals(byName.status, 200);
    assertOk(byName.html.includes(`<a href="/console/keys/${alice.id}">alice-prod</a>`));
    assertOk(byName.html.includes("Keys (1)") && byName.html.includes("Accounts (0)"));

    const byAccount = await page(client.get(search("acme")));
    assertOk(byAccount.html.includes(`<a href="/console/accounts/${account.id}">Acme Corp</a>`));

    const byPrefix = await page(client.get(search(`${aliceView.prefix}…`)));
    assertEquals(byPrefix.status, 200);
    assertOk(byPrefix.html.includes(`/console/keys/${alice.id}`), "found by its prefix");

    const byChannel = await page(client.get(search(channel.name)));
    assertOk(byChannel.html.includes(`<a href="/console/channels/${channel.id}">`), "channel");
    const byModel = await page(client.get(search("gpt-te")));
    assertOk(byModel.html.includes(`/console/models/${MODEL}`), "model");

    const missing = await page(client.get(search("req_nothere")));
    assertEquals(missing.status, 200);
    assertOk(missing.html.includes("No record has the id"), "an unknown id said so");

    const secret = await page(client.get(search(alice.key)));
    assertEquals(secret.status, 400);
    assertOk(secret.html.includes("never searches by"), secret.html);
    assertOk(!secret.html.includes(alice.key), "the secret is not echoed");
    assertEquals((await page(client.get("/console/search"))).status, 400);
    assertEquals((await page(client.get(search("   ")))).status, 400);
    assertEquals((await page(client.get(search("x".repeat(201))))).status, 400);
    assertEquals((await page(client.get("/console/search?q=a&q=b"))).status, 400);
  },
);

Deno.test(
  "console search: key holders and members have no search box and are refused",
  serverTest,
  async () => {
    await using s = await setupChat();
    const holder = consoleClient(s.gw.url);
    await (await holder.signIn(s.key)).body?.cancel();
    const holderPage = await page(holder.get("/console/requests"));
    assertOk(!holderPage.html.includes('action="/console/search"'), "no box for a holder");
    assertEquals((await page(holder.get(search("test")))).status, 403);

    const member = await memberSession(s.gw, "owner@example.com");
    const dashboard = await page(member.get("/console/account"));
    assertEquals(dashboard.status, 200);
    assertOk(!dashboard.html.includes('action="/console/search"'), "no box for a member");
    assertEquals((await page(member.get(search("test")))).status, 403);
  },
);

Deno.test(
  "console search: a task's id goes to the task; the task page names its key and channel",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images", { env: { GATEWAY_TASK_POLL_MS: "50" } });
    const submitted = await postJson(s.gw, "/v1/images/generations", s.key, {
      model: IMAGE_MODEL,
      prompt: "a kite",
    }, { "x-gateway-async-task": "true" });
    const taskId = (await submitted.json()).data.task_id as string;
    let task = (await s.gw.admin("GET", `/admin/tasks/${taskId}`)).body;
    for (let i = 0; i < 400 && task.status !== "succeeded"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      task = (await s.gw.admin("GET", `/admin/tasks/${taskId}`)).body;
    }
    assertEquals(task.status, "succeeded");
    const key = (await s.gw.admin("GET", `/admin/keys/${s.keyId}`)).body;
    const channel = (await s.gw.admin("GET", `/admin/channels/${task.channel_id}`)).body;
    const client = await operatorSession(s.gw);

    const found = await page(client.get(search(taskId)));
    assertEquals([found.status, found.location], [303, `/console/tasks/${taskId}`]);
    const detail = await page(client.get(`/console/tasks/${taskId}`));
    assertOk(detail.html.includes(`<a href="/console/keys/${s.keyId}">${key.name}</a>`), "key");
    assertOk(
      detail.html.includes(`<a href="/console/channels/${channel.id}">${channel.name}</a>`),
      "channel",
    );
    const list = await page(client.get(`/console/tasks?key=${encodeURIComponent(key.name)}`));
    assertEquals(list.status, 200);
    assertOk(list.html.includes(`/console/tasks/${taskId}`), "filtered by the key's name");
    assertOk(list.html.includes(`<a href="/console/channels/${channel.id}">${channel.name}</a>`));
  },
);
