/**
 * A channel's base_url cannot carry credentials (`user:password@`): the upstream key belongs in
 * `keys`, which are sealed, while a URL is shown, audited and logged. Refused on create and on
 * PATCH with a 400 naming base_url, and the password is never echoed or stored.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertAdminError } from "../../helpers/admin_error.ts";
import { serverTest, startTestGateway, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";

const PASSWORD = "Pa55wordOfTheUpstream";
const WITH_CREDENTIALS = [
  `https://user:${PASSWORD}@api.example.com/v1`,
  `https://${PASSWORD}@api.example.com/v1`,
  `https://:${PASSWORD}@api.example.com/v1`,
  `http://user:${encodeURIComponent(`${PASSWORD}/?#`)}@127.0.0.1:9/v1`,
];

Deno.test(
  "a base_url with user:password@ is refused on create and PATCH (400 naming base_url), never echoed or stored",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    await gw.putModel("m", { kind: "text", price: TEST_TEXT_PRICE });
    const channel = { name: "c", type: "openai", keys: ["sk-upstream-key-1"], models: ["m"] };
    const good = await gw.addChannel({ ...channel, base_url: "https://api.example.com/v1" });

    for (const base_url of WITH_CREDENTIALS) {
      const created = await gw.admin("POST", "/admin/channels", { ...channel, base_url });
      const message = assertAdminError(created, 400, "invalid_request");
      assertEquals(created.body.error.param, "base_url", base_url);
      assertOk(message.includes("base_url") && message.includes("keys"), message);
      assertOk(!JSON.stringify(created.body).includes("Pa55word"), "the password was echoed");

      const patched = await gw.admin("PATCH", `/admin/channels/${good.id}`, { base_url });
      assertAdminError(patched, 400, "invalid_request");
      assertEquals(patched.body.error.param, "base_url", base_url);
      assertOk(!JSON.stringify(patched.body).includes("Pa55word"), "the password was echoed");
    }
    const channels = (await gw.admin("GET", "/admin/channels")).body.data;
    assertEquals(channels.map((c: { base_url: string }) => c.base_url), [
      "https://api.example.com/v1",
    ]);
    const audit = await gw.admin("GET", "/admin/audit?limit=1000");
    assertOk(!JSON.stringify(audit.body).includes("Pa55word"), "the password is in the audit log");
    await gw.running.shutdown();
    const kv = await Deno.openKv(gw.kvPath);
    try {
      for await (const entry of kv.list({ prefix: [] })) {
        const text = JSON.stringify(
          entry.value ?? null,
          (_, value) => typeof value === "bigint" ? String(value) : value,
        );
        assertOk(!text.includes("Pa55word"), `KV holds it: ${entry.key.join("/")}`);
      }
    } finally {
      kv.close();
    }
  },
);
