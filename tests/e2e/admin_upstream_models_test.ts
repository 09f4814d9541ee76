/**
 * `GET /admin/channels/{id}/upstream-models`: the upstream's own model list read with the
 * channel's key; a refusal answered as such without the key; a video type has none; an unknown
 * channel is 404 and no token 401.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";
import { startArkVideoUpstream } from "../upstream/ark_video.ts";

Deno.test(
  "admin upstream models: the list, a refused key, a type without a list, 404 and 401",
  serverTest,
  async () => {
    await using upstream = startOpenAIChatUpstream();
    await using ark = startArkVideoUpstream();
    await using gw = await startTestGateway();
    const channel = (keys: string[], type = "openai", base_url = upstream.baseUrl) =>
      gw.addChannel({
        name: type,
        type,
        base_url,
        keys,
        models: [`m-${crypto.randomUUID()}`],
        create_models: true,
      });
    const good = await channel(["sk-upstream-test"]);
    const listed = await gw.admin("GET", `/admin/channels/${good.id}/upstream-models`);
    assertEquals(listed, {
      status: 200,
      body: { ok: true, models: [{ id: "gpt-4o-mini" }, { id: "gpt-4o" }, { id: "o4-mini" }] },
    });
    assertEquals(upstream.requests.length, 0, "a list call is no chat request");

    const wrong = await channel(["sk-wrong-upstream-key"]);
    const refused = await gw.admin("GET", `/admin/channels/${wrong.id}/upstream-models`);
    assertEquals([refused.status, refused.body.ok, refused.body.status], [200, false, 401]);
    assertOk(!JSON.stringify(refused.body).includes("sk-wrong-upstream-key"), "no key");

    const video = await channel(["ark-upstream-test"], "ark-video", ark.baseUrl);
    assertEquals((await gw.admin("GET", `/admin/channels/${video.id}/upstream-models`)).body, {
      ok: false,
      error: "An ark-video upstream has no model list to read",
    });

    const missing = await gw.admin(
      "GET",
      "/admin/channels/ch_0000000000000000000000/upstream-models",
    );
    assertEquals(missing.status, 404);
    const anonymous = await fetch(`${gw.url}/admin/channels/${good.id}/upstream-models`);
    await anonymous.body?.cancel();
    assertEquals(anonymous.status, 401);
  },
);
