/** The gateway side of the bench: admin seeding, sanity check, ledger and metrics read-outs. */

/** The GATEWAY_ADMIN_TOKEN the bench starts the gateway with. */
export const ADMIN_TOKEN = "bench-admin";
export const MODEL = "bench-model";
/** The benchmark request. */
export const PLAIN_BODY = JSON.stringify({
  model: MODEL,
  messages: [{ role: "user", content: "Say hello" }],
});
/** The benchmark request, streamed. */
export const STREAM_BODY = JSON.stringify({
  model: MODEL,
  messages: [{ role: "user", content: "Say hello" }],
  stream: true,
});
/** A streamed request the fixed upstream holds open for a minute (the memory figure). */
export const HELD_STREAM_BODY = JSON.stringify({
  model: MODEL,
  messages: [{ role: "user", content: "Say hello" }],
  stream: true,
  user: "bench-hold",
});
/** The path measured on every target. */
export const CHAT_PATH = "/v1/chat/completions";
export const MESSAGES_PATH = "/v1/messages";
/** A model served by an `anthropic` channel on the fixed upstream. */
export const CLAUDE_MODEL = "bench-claude";
/** A streamed messages request: a pass-through on the anthropic channel. */
export const MESSAGES_STREAM_BODY = JSON.stringify({
  model: CLAUDE_MODEL,
  max_tokens: 64,
  messages: [{ role: "user", content: "Say hello" }],
  stream: true,
});
/** A streamed chat request to the same model: converted to and from the messages format. */
export const CONVERTED_STREAM_BODY = JSON.stringify({
  model: CLAUDE_MODEL,
  messages: [{ role: "user", content: "Say hello" }],
  stream: true,
});
const SETTLE_TIMEOUT_MS = 20_000;

/** One admin API call; fails unless it answers `expected`. */
export async function admin(
  gatewayUrl: string,
  method: string,
  path: string,
  body: unknown,
  expected: number,
): Promise<Record<string, unknown>> {
  const response = await fetch(gatewayUrl + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`${method} ${path}: expected ${expected}, got ${response.status}: ${text}`);
  }
  return text ? JSON.parse(text) : {};
}

const BENCH_CHANNEL_NAMES = new Set(["bench", "bench-anthropic"]);

async function deleteBenchChannels(gatewayUrl: string): Promise<void> {
  const listed = await admin(gatewayUrl, "GET", "/admin/channels?limit=1000", undefined, 200);
  const channels = (listed.data ?? []) as { id: string; name: string }[];
  for (const channel of channels.filter((c) => BENCH_CHANNEL_NAMES.has(c.name))) {
    await admin(gatewayUrl, "DELETE", `/admin/channels/${channel.id}`, undefined, 204);
  }
}

/** Units the funded key starts with: enough for any bench run. */
export const FUNDED_BALANCE = 1_000_000_000_000;

/**
 * Registers the model, a channel to the fixed upstream, a key without limit and a key with a
 * balance; returns both keys. On a KV file kept from an earlier run (`BENCH_STORED_KV`) the
 * earlier run's bench channels point at an upstream that is gone: they are deleted first, or
 * every request would fail over through them.
 */
export async function seed(
  gatewayUrl: string,
  upstreamUrl: string,
): Promise<
  {
    unlimited: { id: string; key: string };
    funded: { id: string; key: string };
    text: { id: string; key: string };
  }
> {
  await deleteBenchChannels(gatewayUrl);
  await admin(gatewayUrl, "PUT", `/admin/models/${MODEL}`, {
    kind: "text",
    price: { input: 1_000_000, output: 2_000_000 },
  }, 200);
  await admin(gatewayUrl, "POST", "/admin/channels", {
    name: "bench",
    type: "openai",
    base_url: `${upstreamUrl}/v1`,
    keys: ["sk-bench"],
    models: [MODEL],
  }, 201);
  await admin(gatewayUrl, "PUT", `/admin/models/${CLAUDE_MODEL}`, {
    kind: "text",
    price: { input: 1_000_000, output: 2_000_000 },
  }, 200);
  await admin(gatewayUrl, "POST", "/admin/channels", {
    name: "bench-anthropic",
    type: "anthropic",
    base_url: upstreamUrl,
    keys: ["sk-bench"],
    models: [CLAUDE_MODEL],
    model_map: { [CLAUDE_MODEL]: `${CLAUDE_MODEL}-upstream` },
  }, 201);
  const createKey = async (input: Record<string, unknown>) => {
    const created = await admin(gatewayUrl, "POST", "/admin/keys", input, 201);
    if (typeof created.key !== "string" || typeof created.id !== "string") {
      throw new Error(`POST /admin/keys answered without id/key: ${JSON.stringify(created)}`);
    }
    return { id: created.id, key: created.key };
  };
  return {
    unlimited: await createKey({ name: "bench", unlimited: true }),
    funded: await createKey({ name: "bench-funded", balance: FUNDED_BALANCE }),
    text: await createKey({ name: "bench-text", unlimited: true }),
  };
}

async function chat(url: string, key: string, body: string): Promise<[number, string]> {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body,
  });
  return [response.status, await response.text()];
}

/** One plain and one streaming request through the gateway must succeed before measuring. */
export async function sanityCheck(gatewayUrl: string, key: string): Promise<void> {
  const [status, text] = await chat(gatewayUrl + CHAT_PATH, key, PLAIN_BODY);
  let choices: unknown;
  try {
    choices = JSON.parse(text).choices;
  } catch {
    choices = undefined;
  }
  if (status !== 200 || !Array.isArray(choices) || choices.length === 0) {
    throw new Error(`Sanity check failed: gateway answered ${status}: ${text}`);
  }
  const [streamStatus, streamText] = await chat(gatewayUrl + CHAT_PATH, key, STREAM_BODY);
  if (streamStatus !== 200 || !streamText.trimEnd().endsWith("data: [DONE]")) {
    throw new Error(
      `Streaming sanity check failed: gateway answered ${streamStatus}: ${streamText}`,
    );
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Checks the funded key's money once every request has settled: one billed request per request
 * answered 200 (a settle bills one, an aggregated charge its `requests`), Σ billed costs = the
 * gateway's own cost counter, and balance = start − Σ costs (a stream the client left early
 * costs what was delivered, so costs are summed, not multiplied).
 */
export async function ledgerCheck(
  gatewayUrl: string,
  { keyId, okRequests, countedCost, startBalance }: {
    keyId: string;
    okRequests: number;
    /** What the gateway's cost counter grew by over the same requests. */
    countedCost: number;
    startBalance: number;
  },
): Promise<string> {
  const started = performance.now();
  let settles = 0;
  let costs = 0;
  let balance = NaN;
  while (performance.now() - started < SETTLE_TIMEOUT_MS) {
    settles = 0;
    costs = 0;
    let cursor = "";
    do {
      const page = await admin(
        gatewayUrl,
        "GET",
        `/admin/ledger?key=${keyId}&limit=1000&cursor=${cursor}`,
        undefined,
        200,
      );
      const entries = page.data as Array<{ type: string; cost?: number; requests?: number }>;
      for (const entry of entries) {
        if (entry.type !== "settle" && entry.type !== "charge") continue;
        settles += entry.requests ?? 1;
        costs += entry.cost ?? 0;
      }
      cursor = (page.cursor as string | null) ?? "";
    } while (cursor);
    const record = await admin(gatewayUrl, "GET", `/admin/keys/${keyId}`, undefined, 200);
    balance = Number(record.balance);
    if (settles >= okRequests && balance === startBalance - costs) break;
    await sleep(200);
  }
  const counted = countedCost;
  const ok = settles === okRequests && costs === counted && balance === startBalance - costs;
  return `${okRequests} requests answered 200, ${settles} billed; Σ costs ${costs} ` +
    `units (gateway_cost_units_total ${counted}); balance ${balance} = start − Σ costs: ` +
    (ok ? "exact" : "MISMATCH");
}

/** Resident memory of process `pid` in MB, from /proc (Linux); null elsewhere. */
export function rssNumberMb(pid: number): number | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = Number(status.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : null;
  } catch {
    return null;
  }
}

/** From /metrics: chat requests answered 200, and KV operations by kind (GATEWAY_KV_COUNT_OPS). */
export async function metricValues(
  gatewayUrl: string,
): Promise<{ chatOk: number; cost: number; kvOps: Record<string, number> }> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  let chatOk = 0;
  let cost = 0;
  const kvOps: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const value = Number(line.split(" ").at(-1));
    if (
      line.startsWith("gateway_requests_total{") && line.includes('route="/v1/chat/completions"') &&
      line.includes('status="200"')
    ) {
      chatOk += value;
    }
    if (line.startsWith(`gateway_cost_units_total{model="${MODEL}"}`)) cost += value;
    const op = /^gateway_kv_operations_total\{op="([^"]+)"\}/.exec(line)?.[1];
    if (op) kvOps[op] = (kvOps[op] ?? 0) + value;
  }
  return { chatOk, cost, kvOps };
}
