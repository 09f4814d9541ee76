/** Image tasks on a test gateway with webhook settings fit for tests, and their helpers. */

import { Webhook } from "standardwebhooks";
import { assertEquals } from "./assert.ts";
import { postJson } from "./gateway.ts";
import { type ImageSetup, setupImages } from "./image_setup.ts";
import type { ReceivedWebhook } from "./webhook_receiver.ts";

/** Receivers on 127.0.0.1 allowed; quick polls, retries and timeouts. */
export const WEBHOOK_TEST_ENV = {
  GATEWAY_TASK_POLL_MS: "50",
  GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1",
  GATEWAY_WEBHOOK_RETRY_BASE_MS: "200",
  GATEWAY_WEBHOOK_TIMEOUT_MS: "2000",
};

/** An image setup (openai-images simulator) with WEBHOOK_TEST_ENV and `env` over it. */
export function setupWebhookImages(
  options: { env?: Record<string, string>; openai?: { delayMs?: number } } = {},
): Promise<ImageSetup> {
  return setupImages("openai-images", {
    env: { ...WEBHOOK_TEST_ENV, ...options.env },
    openai: options.openai,
  });
}

/** Registers an endpoint; returns its id and secret. */
export async function createEndpoint(
  s: ImageSetup,
  input: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const { status, body } = await s.gw.admin("POST", "/admin/webhooks", input);
  assertEquals(status, 201, JSON.stringify(body));
  return { id: body.id, secret: body.secret };
}

/** Submits an image task (`X-Gateway-Async-Task: true`) and returns its id. */
export async function submitImageTask(
  s: ImageSetup,
  body: Record<string, unknown> = { prompt: "a kite", n: 1 },
): Promise<string> {
  const response = await postJson(s.gw, "/v1/images/generations", s.key, body, {
    "x-gateway-async-task": "true",
  });
  const answer = await response.json();
  assertEquals(response.status, 200, JSON.stringify(answer));
  return answer.data.task_id;
}

/** Polls the task's status route until it ends; returns the answer's `data`. */
export async function waitForImageTask(
  s: ImageSetup,
  taskId: string,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 400; i++) {
    const response = await fetch(`${s.gw.url}/v1/images/tasks/${taskId}`, {
      headers: { authorization: `Bearer ${s.key}` },
    });
    const body = await response.json();
    if (body.data?.status === "succeeded" || body.data?.status === "failed") return body.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${taskId} did not finish`);
}

/** Verifies a received delivery as a receiver would; returns its payload. */
// deno-lint-ignore no-explicit-any
export function verified(secret: string, received: ReceivedWebhook): any {
  return new Webhook(secret).verify(received.body, received.headers);
}

/** Waits until `read` gives a value `done` accepts (at most ~10 s); returns it. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean) {
  let value = await read();
  for (let i = 0; i < 200 && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
