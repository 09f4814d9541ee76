/**
 * DNS rebinding: a webhook name that resolves to a public address when the SSRF guard looks and
 * to a private one right after. The delivery connects to the address the guard checked, so the
 * private receiver never hears from it. The name resolution is the test's (an injected resolver);
 * the name is this machine's own, which the system resolver (the one fetch asks) maps to a local
 * address: a second lookup would reach the receiver.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";

/** TEST-NET-1: public to the guard, and nothing answers there. */
const CHECKED = "192.0.2.1";

Deno.test(
  "webhooks: a name that rebinds to a private address after the check gets nothing: the attempt goes to the checked address",
  serverTest,
  async () => {
    await using receiver = startWebhookReceiver({ kind: "ok" }, { hostname: "0.0.0.0" });
    const port = new URL(receiver.url).port;
    const name = Deno.hostname();
    const url = `http://${name}:${port}/hook`;
    // The premise: the system's resolver takes this name to the receiver.
    const probe = await fetch(url, { method: "POST", body: "{}" });
    await probe.body?.cancel();
    assertEquals(probe.status, 200, `${name} does not reach the receiver; the test needs it to`);
    receiver.received.length = 0;

    const lookups: string[] = [];
    const resolve = (host: string) => {
      lookups.push(host);
      return Promise.resolve(lookups.length === 1 ? [CHECKED] : ["127.0.0.1"]);
    };
    await using gw = await startTestGateway(
      { GATEWAY_WEBHOOK_TIMEOUT_MS: "1500", GATEWAY_WEBHOOK_RETRY_BASE_MS: "60000" },
      { webhookResolve: resolve },
    );
    const endpoint = await gw.admin("POST", "/admin/webhooks", { url });
    assertEquals(endpoint.status, 201, JSON.stringify(endpoint.body));
    const test = await gw.admin("POST", `/admin/webhooks/${endpoint.body.id}/test`);
    assertEquals(test.body.status, "failed", JSON.stringify(test.body));
    const reason: string = test.body.attempts[0].error;
    assertOk(!reason.includes("address refused"), reason);
    assertEquals(lookups, [name], "one lookup for the attempt, the one checked");
    assertEquals(receiver.received.length, 0, "the private receiver was reached");

    // The next attempt looks again: now the name is private, and it is refused before any connection.
    const again = await gw.admin(
      "POST",
      `/admin/webhooks/${endpoint.body.id}/deliveries/${test.body.id}/redeliver`,
    );
    const second: string = again.body.attempts.at(-1).error;
    assertOk(second.includes("address refused") && second.includes("127.0.0.1"), second);
    assertEquals(receiver.received.length, 0);
  },
);
