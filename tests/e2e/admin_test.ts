import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../helpers/gateway.ts";

Deno.test(
  "admin keys: the secret is shown once, lists show a prefix, KV holds only a hash",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const created = await gw.admin("POST", "/admin/keys", {
      name: "team-a",
      balance: 5_000,
      rpm: 60,
    });
    assertEquals(created.status, 201);
    const { id, key } = created.body;
    assertOk(key.startsWith("sk-gw-"));
    assertEquals(created.body.balance, 5_000);
    await gw.putModel("m", { kind: "text", price: { input: 1, output: 1 } });
    const fetched = (await gw.admin("GET", `/admin/keys/${id}`)).body;
    assertEquals(fetched.key, undefined);
    assertEquals(fetched.hash, undefined);
    assertEquals(fetched.prefix, key.slice(0, 10));
    const listed = (await gw.admin("GET", "/admin/keys")).body.data;
    assertEquals(listed.length, 1);
    assertOk(!JSON.stringify(listed).includes(key));

    const channel = await gw.admin("POST", "/admin/channels", {
      name: "up",
      type: "openai",
      base_url: "https://upstream.example/v1",
      keys: ["sk-upstream-very-secret"],
      models: ["m"],
    });
    assertEquals(channel.status, 201);
    assertOk(!JSON.stringify(channel.body).includes("sk-upstream-very-secret"));
    assertEquals(channel.body.key_count, 1);

    using kv = await Deno.openKv(gw.kvPath);
    for await (const entry of kv.list({ prefix: [] })) {
      const text = JSON.stringify(entry.value ?? null);
      assertOk(!text.includes(key), `the key secret is stored in clear under ${entry.key}`);
      assertOk(
        !text.includes("sk-upstream-very-secret"),
        `an upstream secret is in clear under ${entry.key}`,
      );
    }
  },
);

Deno.test("admin keys: patch, credit with ledger entries, delete", serverTest, async () => {
  await using gw = await startTestGateway();
  const { id, key } = await gw.createKey({ balance: 100 });
  const patched = await gw.admin("PATCH", `/admin/keys/${id}`, {
    name: "renamed",
    models: ["x"],
  });
  assertEquals(patched.body.name, "renamed");
  assertEquals(patched.body.models, ["x"]);
  const credit = await gw.admin("POST", `/admin/keys/${id}/credit`, {
    amount: 250,
    note: "top-up",
  });
  assertEquals(credit.status, 201);
  assertEquals(credit.body.type, "credit");
  assertEquals(credit.body.amount, 250);
  assertEquals(credit.body.balance_after, 350);
  assertEquals(await gw.assertLedgerInvariant(id), 350);
  const duplicate = { amount: 5, ref: "invoice-7" };
  assertEquals((await gw.admin("POST", `/admin/keys/${id}/credit`, duplicate)).status, 201);
  assertEquals((await gw.admin("POST", `/admin/keys/${id}/credit`, duplicate)).status, 409);
  assertEquals((await gw.admin("DELETE", `/admin/keys/${id}`)).status, 204);
  assertEquals((await gw.admin("GET", `/admin/keys/${id}`)).status, 404);
  const response = await fetch(`${gw.url}/v1/models`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assertEquals(response.status, 401);
  await response.body?.cancel();
});

Deno.test(
  "admin API: refuses without the admin token and names bad fields",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const anonymous = await fetch(`${gw.url}/admin/keys`);
    assertEquals(anonymous.status, 401);
    assertEquals((await anonymous.json()).error.code, "invalid_admin_token");
    const wrong = await fetch(`${gw.url}/admin/keys`, {
      headers: { authorization: "Bearer nope" },
    });
    assertEquals(wrong.status, 401);
    await wrong.body?.cancel();

    const badKey = await gw.admin("POST", "/admin/keys", { name: "x", balance: 1.5 });
    assertEquals(badKey.status, 400);
    assertEquals(badKey.body.error.param, "balance");
    const badChannel = await gw.admin("POST", "/admin/channels", {
      name: "x",
      type: "openai",
      base_url: "not a url",
      keys: ["k"],
      models: ["m"],
    });
    assertEquals(badChannel.body.error.param, "base_url");
    const badPrice = await gw.admin("PUT", "/admin/models/m", {
      kind: "text",
      price: { per_image: 1 },
    });
    assertEquals(badPrice.status, 400);
    assertEquals(badPrice.body.error.param, "price");
    assertEquals(ADMIN_TOKEN.length > 0, true);
  },
);

Deno.test(
  "admin channels and models: get, patch, delete; default catalog holds the spec's models",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await gw.putModel("m", { kind: "text", price: { input: 1, output: 1 } });
    const channel = await gw.addChannel({ base_url: "http://127.0.0.1:9/v1", models: ["m"] });
    const patched = await gw.admin("PATCH", `/admin/channels/${channel.id}`, {
      enabled: false,
      weight: 3,
    });
    assertEquals(patched.body.enabled, false);
    assertEquals(patched.body.weight, 3);
    assertEquals((await gw.admin("GET", "/admin/channels")).body.data.length, 1);
    assertEquals((await gw.admin("DELETE", `/admin/channels/${channel.id}`)).status, 204);
    assertEquals((await gw.admin("GET", `/admin/channels/${channel.id}`)).status, 404);

    for (const id of ["gen-image-2", "gen-image-2-4k", "vid-2", "vid-2-1080p", "vid-2-cheap"]) {
      assertEquals((await gw.admin("GET", `/admin/models/${id}`)).status, 200, id);
    }
    assertEquals((await gw.admin("GET", "/admin/models/vid-2-cheap")).body.price, {
      per_task: 500_000,
    });
    const put = await gw.admin("PUT", "/admin/models/vid-2", {
      kind: "video",
      price: { per_second: 70_000 },
    });
    assertEquals(put.body.price, { per_second: 70_000 });
    assertEquals((await gw.admin("GET", "/admin/ledger?limit=0")).status, 400);
  },
);
