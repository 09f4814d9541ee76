/**
 * The webhook POST connects to the address it is given, and still speaks to the URL's host: the
 * name in `Host`, and for https in SNI and the certificate check. Real receivers, real TLS.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { startWebhookReceiver } from "../../helpers/webhook_receiver.ts";
import { postWebhook } from "../../../core/webhooks/webhook_post.ts";

const TLS = new URL("../../fixtures/tls/", import.meta.url);
const cert = Deno.readTextFileSync(new URL("hooks.test.cert.pem", TLS));
const key = Deno.readTextFileSync(new URL("hooks.test.key.pem", TLS));

const post = (overrides: Partial<Parameters<typeof postWebhook>[1]> = {}) => ({
  headers: { "content-type": "application/json", "webhook-id": "msg_1" },
  body: '{"type":"test","data":{"ü":1}}',
  signal: AbortSignal.timeout(10_000),
  address: "127.0.0.1",
  ...overrides,
});

Deno.test("postWebhook(): connects to the given address; Host, path and body are the URL's", async () => {
  await using receiver = startWebhookReceiver();
  const port = new URL(receiver.url).port;
  const status = await postWebhook(new URL(`http://hooks.test:${port}/in?x=1`), post());
  assertEquals(status, 200);
  const [got] = receiver.received;
  assertEquals(got.headers.host, `hooks.test:${port}`);
  assertEquals(got.id, "msg_1");
  assertEquals(got.body, '{"type":"test","data":{"ü":1}}');
});

Deno.test("postWebhook(): over TLS the certificate is checked against the URL's host, not the address", async () => {
  await using receiver = startWebhookReceiver({ kind: "ok" }, { cert, key });
  const port = new URL(receiver.url).port;
  const status = await postWebhook(
    new URL(`https://hooks.test:${port}/in`),
    post({ caCerts: [cert] }),
  );
  assertEquals(status, 200);
  assertEquals(receiver.received[0].headers.host, `hooks.test:${port}`);
  for (
    const [url, caCerts] of [
      [`https://other.test:${port}/in`, [cert]], // a name the certificate is not for
      [`https://hooks.test:${port}/in`, undefined], // a certificate nobody trusts
    ] as const
  ) {
    const refused = await postWebhook(new URL(url), post({ caCerts: caCerts && [...caCerts] }))
      .then(() => null, (error) => error);
    assertOk(refused instanceof Error, `${url}: ${refused}`);
  }
  assertEquals(receiver.received.length, 1);
});

Deno.test("postWebhook(): a redirect is answered, never followed", async () => {
  await using receiver = startWebhookReceiver({ kind: "status", status: 307 });
  const port = new URL(receiver.url).port;
  assertEquals(await postWebhook(new URL(`http://hooks.test:${port}/in`), post()), 307);
  assertEquals(receiver.received.length, 1);
});

Deno.test("postWebhook(): an abort ends a hanging attempt with the signal's reason", async () => {
  await using receiver = startWebhookReceiver({ kind: "hang" });
  const port = new URL(receiver.url).port;
  const controller = new AbortController();
  const attempt = postWebhook(
    new URL(`http://hooks.test:${port}/in`),
    post({
      signal: controller.signal,
    }),
  );
  await receiver.waitFor(1);
  controller.abort(new DOMException("timed out", "TimeoutError"));
  const error = await attempt.then(() => null, (reason) => reason);
  assertEquals((error as DOMException).name, "TimeoutError");
});
