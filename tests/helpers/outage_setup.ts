/**
 * What the store outage and several-instance tests set up on a gateway process over HTTP: a text
 * model priced at TEST_TEXT_PRICE, a channel to a simulated upstream, keys; and the calls they
 * make (a chat request, the admin API).
 */

import { ADMIN_TOKEN, TEST_TEXT_PRICE } from "./gateway.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** An admin call on the gateway at `url`: its status and JSON body. */
export async function adminCall(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Model `m` and a channel to `upstreamBaseUrl` serving it. */
export async function setUpTextModel(url: string, upstreamBaseUrl: string): Promise<void> {
  const model = await adminCall(url, "PUT", "/admin/models/m", {
    kind: "text",
    price: TEST_TEXT_PRICE,
  });
  if (model.status !== 200) throw new Error(`model: ${JSON.stringify(model.body)}`);
  const channel = await adminCall(url, "POST", "/admin/channels", {
    name: "sim",
    type: "openai",
    base_url: upstreamBaseUrl,
    keys: ["sk-upstream-test"],
    models: ["m"],
  });
  if (channel.status !== 201) throw new Error(`channel: ${JSON.stringify(channel.body)}`);
}

/** A key (its own account unless `input` names one); returns its id and secret. */
export async function makeKey(
  url: string,
  input: Record<string, unknown>,
): Promise<{ id: string; key: string; account?: string }> {
  const made = await adminCall(url, "POST", "/admin/keys", { name: "k", ...input });
  if (made.status !== 201) throw new Error(`key: ${JSON.stringify(made.body)}`);
  return { id: made.body.id, key: made.body.key, account: made.body.account };
}

/** What a chat request answered: its status, body, and the cost its usage comes to. */
export async function chat(
  url: string,
  key: string,
  init: { signal?: AbortSignal; stream?: boolean; maxTokens?: number } = {},
): Promise<{ status: number; body: Json; cost: number }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    signal: init.signal,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "count" }],
      ...(init.maxTokens && { max_tokens: init.maxTokens }),
      ...(init.stream && { stream: true, stream_options: { include_usage: true } }),
    }),
  });
  const text = await response.text();
  if (init.stream) return { status: response.status, body: text, cost: 0 };
  const body = JSON.parse(text);
  const usage = body.usage;
  const cost = usage
    ? (usage.prompt_tokens * TEST_TEXT_PRICE.input +
      usage.completion_tokens * TEST_TEXT_PRICE.output) / 1_000_000
    : 0;
  return { status: response.status, body, cost };
}

/** Polls `check` until it holds (state that changes outside the test's clock); fails after many tries. */
export async function eventually(
  what: string,
  check: () => Promise<boolean> | boolean,
  tries = 1200,
): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never: ${what}`);
}

/** A request on `key` in one of the text interfaces, for the shape of its error envelope. */
export async function interfaceCall(
  url: string,
  key: string,
  kind: "openai" | "anthropic" | "gemini",
): Promise<{ status: number; body: Json }> {
  const [path, headers, body] = kind === "openai"
    ? [
      "/v1/chat/completions",
      { authorization: `Bearer ${key}` },
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: "count" }] },
    ]
    : kind === "anthropic"
    ? [
      "/v1/messages",
      { "x-api-key": key, "anthropic-version": "2023-06-01" },
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: "count" }] },
    ]
    : [
      "/v1beta/models/m:generateContent",
      { "x-goog-api-key": key },
      {
        contents: [{ role: "user", parts: [{ text: "count" }] }],
        generationConfig: { maxOutputTokens: 10 },
      },
    ];
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Σ cost of the account's logged requests (every page). */
export async function loggedCosts(url: string, accountId: string): Promise<number> {
  let total = 0;
  let cursor = "";
  do {
    const page = await adminCall(
      url,
      "GET",
      `/admin/requests?account=${accountId}&limit=1000&cursor=${cursor}`,
    );
    if (page.status !== 200) throw new Error(`request log: ${JSON.stringify(page.body)}`);
    for (const record of page.body.data) total += record.cost;
    cursor = page.body.cursor ?? "";
  } while (cursor);
  return total;
}
