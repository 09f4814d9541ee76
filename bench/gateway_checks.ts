/** The gateway side of the bench: admin seeding, sanity check, ledger and metrics read-outs. */

/** The GATEWAY_ADMIN_TOKEN the bench starts the gateway with. */
export const ADMIN_TOKEN = "bench-admin";
const MODEL = "bench-model";
/** Units one request costs: 10 input and 5 output tokens at 1 and 2 units per token. */
const COST_PER_REQUEST = 20;
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

async function admin(
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

/** Units the funded key starts with: enough for any bench run. */
export const FUNDED_BALANCE = 1_000_000_000_000;

/**
 * Registers the model, a channel to the fixed upstream, a key without limit and a key with a
 * balance; returns both keys.
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

/** Polls the key's balance until it shows every successful request settled, or times out. */
export async function ledgerCheck(
  gatewayUrl: string,
  keyId: string,
  okRequests: number,
  startBalance = 0,
): Promise<string> {
  const expected = startBalance - okRequests * COST_PER_REQUEST;
  const started = performance.now();
  let balance = NaN;
  while (performance.now() - started < SETTLE_TIMEOUT_MS) {
    const record = await admin(gatewayUrl, "GET", `/admin/keys/${keyId}`, undefined, 200);
    balance = Number(record.balance);
    if (balance === expected) break;
    await sleep(100);
  }
  const waited = Math.round(performance.now() - started);
  let entries = "";
  if (balance !== expected) {
    const costs = new Map<number, number>();
    let cursor = "";
    do {
      const page = await admin(
        gatewayUrl,
        "GET",
        `/admin/ledger?key=${keyId}&limit=1000&cursor=${cursor}`,
        undefined,
        200,
      );
      for (const entry of page.data as Array<{ amount: number }>) {
        costs.set(entry.amount, (costs.get(entry.amount) ?? 0) + 1);
      }
      cursor = (page.cursor as string | null) ?? "";
    } while (cursor);
    entries = `; entries by amount: ${JSON.stringify(Object.fromEntries(costs))}`;
  }
  const verdict = balance === expected
    ? `matches; reached ${waited} ms after the last load run returned`
    : `DIFFERS by ${balance - expected} units after waiting ${waited} ms${entries}`;
  return `${okRequests} successful requests x ${COST_PER_REQUEST} units, from ${startBalance}: ` +
    `expected ${expected}; key balance ${balance} (${verdict})`;
}

/** Resident memory of process `pid` in MB, from /proc (Linux); "n/a" elsewhere. */
export async function rssMb(pid: number): Promise<string> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const kb = Number(status.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]);
    return Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MB` : "n/a";
  } catch {
    return "n/a";
  }
}

/** The gateway's request, attempt and cost counters from /metrics. */
export async function metricsSummary(gatewayUrl: string): Promise<string[]> {
  const response = await fetch(`${gatewayUrl}/metrics`);
  const text = await response.text();
  return text.split("\n").filter((line) =>
    /^gateway_(requests_total|upstream_attempts_total|cost_units_total)/.test(line)
  );
}
