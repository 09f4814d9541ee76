/**
 * The console's channel form offers `openai-video` and `veo` with their base URL forms; a
 * channel of each made through the form passes the Test (a call that makes no video), and a key
 * the upstream refuses fails it; nothing is billed.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import { startOpenAIVideoUpstream } from "../../upstream/openai_video.ts";
import { startVeoUpstream } from "../../upstream/veo.ts";

Deno.test(
  "console channels: openai-video and veo are offered, made through the form, and pass the Test",
  serverTest,
  async () => {
    await using sora = startOpenAIVideoUpstream();
    await using veo = startVeoUpstream();
    await using gw = await startTestGateway();
    const client = consoleClient(gw.url);
    await (await client.signIn(ADMIN_TOKEN)).body?.cancel();

    const picker = await (await client.get("/console/channels/new")).text();
    for (const type of ["openai-video", "veo"]) {
      assertOk(picker.includes(`value="${type}"`), `the picker offers ${type}`);
    }
    const forms = [
      ["openai-video", "https://api.openai.com/v1", sora.baseUrl, "sora-upstream-test", "sora-2"],
      [
        "veo",
        "https://generativelanguage.googleapis.com/v1beta",
        veo.baseUrl,
        "veo-upstream-test",
        "veo-3.0-generate-001",
      ],
    ] as const;
    for (const [type, example, baseUrl, key, model] of forms) {
      const form = await (await client.get(`/console/channels/new?type=${type}`)).text();
      assertOk(form.includes(example), `${type}'s base URL form`);
      const made = await client.post("/console/channels/new", {
        type,
        name: `my ${type}`,
        base_url: baseUrl,
        keys: key,
        models: model,
        enabled: "on",
        create_models: "on",
      });
      await made.body?.cancel();
      assertEquals(made.status, 303, type);
      const id = made.headers.get("location")!.split("/").pop()!;
      const channel = (await gw.admin("GET", `/admin/channels/${id}`)).body;
      assertEquals(channel.type, type);

      const tested = await gw.admin("POST", `/admin/channels/${id}/test`, { model });
      assertEquals(tested.body.ok, true, JSON.stringify(tested.body));
      const shown = await client.post(`/console/channels/${id}/test`, { model });
      assertEquals(shown.status, 200);
      await shown.body?.cancel();

      const wrong = await gw.addChannel({
        name: `${type}, wrong key`,
        type,
        base_url: baseUrl,
        keys: ["wrong-key"],
        models: [model],
      });
      const refused = await gw.admin("POST", `/admin/channels/${wrong.id}/test`, { model });
      assertEquals(refused.body.ok, false, JSON.stringify(refused.body));
    }
    assertEquals(sora.creates, 0);
    assertEquals(veo.creates, 0);
    const ledger = (await gw.admin("GET", "/admin/ledger")).body.data;
    assertEquals(ledger.filter((entry: { type: string }) => entry.type !== "credit"), []);
  },
);
