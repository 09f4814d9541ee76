/** Standard Webhooks signing, checked against the `standardwebhooks` package as a receiver. */

import { Webhook } from "standardwebhooks";
import { assertEquals, assertOk, assertThrows } from "../../helpers/assert.ts";
import {
  newMessageId,
  newWebhookSecret,
  signatureOf,
  webhookHeaders,
  webhookSecretProblem,
} from "../../../core/webhooks/signing.ts";

Deno.test("newWebhookSecret() is whsec_ and base64 of 32 bytes", () => {
  const secret = newWebhookSecret();
  assertOk(/^whsec_[A-Za-z0-9+/]{43}=$/.test(secret), secret);
  assertEquals(webhookSecretProblem(secret), null);
  assertOk(newWebhookSecret() !== secret);
});

Deno.test("webhookSecretProblem() refuses other shapes and sizes", () => {
  assertOk(webhookSecretProblem("sk-123")?.includes("whsec_"));
  assertOk(webhookSecretProblem("whsec_@@@")?.includes("base64"));
  assertOk(webhookSecretProblem(`whsec_${btoa("short")}`)?.includes("24 to 64 bytes"));
});

Deno.test("webhookHeaders() verify with standardwebhooks' Webhook.verify", async () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({ type: "task.succeeded", data: { task_id: "task_1" } });
  const headers = await webhookHeaders([secret], {
    id: newMessageId(),
    timestamp: Math.floor(Date.now() / 1000),
    body,
  });
  assertOk(/^msg_[0-9A-Za-z]{27}$/.test(headers["webhook-id"]));
  assertOk(headers["webhook-signature"].startsWith("v1,"));
  const verified = new Webhook(secret).verify(body, headers);
  assertEquals((verified as { type: string }).type, "task.succeeded");
  assertThrows(() => new Webhook(newWebhookSecret()).verify(body, headers));
  assertThrows(() => new Webhook(secret).verify(body.replace("task_1", "task_2"), headers));
});

Deno.test("webhookHeaders() with two secrets: two signatures, each verifies alone", async () => {
  const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
  const body = "{}";
  const message = { id: "msg_1", timestamp: Math.floor(Date.now() / 1000), body };
  const headers = await webhookHeaders([newSecret, oldSecret], message);
  assertEquals(headers["webhook-signature"].split(" ").length, 2);
  new Webhook(oldSecret).verify(body, headers);
  new Webhook(newSecret).verify(body, headers);
});

Deno.test("signatureOf() signs id.timestamp.body with the bytes after whsec_", async () => {
  // The example of the Standard Webhooks specification.
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const signature = await signatureOf(secret, {
    id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
  });
  assertEquals(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
});
