/**
 * Random input at every route of the real server: random methods, percent-encoded path segments
 * (valid and broken UTF-8, over-long, control characters, id look-alikes), query strings, bodies
 * (random bytes, invalid UTF-8, random JSON, huge numbers, deep nesting, broken multipart) and
 * content types, with a valid credential, a wrong one or none. With a fixed seed and a bounded
 * count. No channel is configured, so nothing may answer 5xx but 503 `no_available_channel` (a
 * valid request for a built-in model); every error is JSON in its interface's envelope; and no
 * key's balance moves.
 *
 * The routes are read from the app itself, so a new route is fuzzed without touching this file.
 * A failure prints the seed and the request that broke, enough to replay it by hand.
 */

import { createApp } from "../../../app.ts";
import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../../helpers/gateway.ts";

/** FUZZ_SEED (hex) and FUZZ_COUNT replay another run or a longer one by hand. */
const SEED = Number.parseInt(Deno.env.get("FUZZ_SEED") ?? "5eed2026", 16);
const COUNT = Number(Deno.env.get("FUZZ_COUNT") ?? 1_500);
const PARALLEL = 12;
const OPENING = 10_000_000;

/** mulberry32: small, fast, and the same sequence on every run. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick<T>(items: readonly T[]): T {
      return items[int(items.length)];
    },
    chance(p: number) {
      return next() < p;
    },
    bytes(n: number) {
      return Uint8Array.from({ length: n }, () => int(256));
    },
  };
}
type Random = ReturnType<typeof prng>;

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const word = (r: Random, n: number) => Array.from({ length: n }, () => r.pick([...ALNUM])).join("");
const hex = (byte: number) => `%${byte.toString(16).padStart(2, "0").toUpperCase()}`;

/** One path segment: odd more often than not. */
function segment(r: Random): string {
  switch (r.int(14)) {
    case 0:
      return Array.from(r.bytes(1 + r.int(12)), hex).join(""); // random bytes, mostly not UTF-8
    case 1:
      return r.pick(["%E0%A4%A", "%", "%z", "%zz", "%ff", "%C3", "%ED%A0%80", "%F4%90%80%80"]);
    case 2:
      return "a".repeat(200 + r.int(3000));
    case 3:
      return `key_${word(r, 1 + r.int(30))}`;
    case 4:
      return `task_${word(r, 1 + r.int(30))}`;
    case 5:
      return `med_${word(r, 32)}.${r.pick(["png", "mp4", "x", ""])}`;
    case 6:
      return encodeURIComponent(
        r.pick(["ü", "模型", "🦊", "\u0000", "\n", "\u007f", "a b", "a/b", "..", "a:b", "%"]) +
          word(r, r.int(6)),
      );
    case 7:
      return r.pick(["%2F", "..", "%2E%2E", "%00", "%0A", "%20", "-", "_", "."]);
    case 8:
      return `ch_${word(r, 1 + r.int(20))}`;
    case 9:
      return r.pick(["gpt-test", "gen-image-2", "vid-2", "models%2Fgen-image-2", "x".repeat(201)]);
    default:
      return word(r, 1 + r.int(24));
  }
}

/** A concrete path for a route template (`:name`, `:name{pattern}`). */
function fillTemplate(r: Random, template: string): string {
  return template.replace(
    /:([A-Za-z_]+)(\{(?:[^{}]|\{[^{}]*\})*\})?\??/g,
    (_all, _name, pattern) => {
      const value = segment(r);
      if (pattern?.includes("generateContent")) {
        return `${value}:${
          r.pick(["generateContent", "streamGenerateContent", "generateContent", "countTokens"])
        }`;
      }
      return value;
    },
  );
}

const QUERY_NAMES = [
  "cursor",
  "limit",
  "order",
  "since",
  "until",
  "key",
  "pageSize",
  "pageToken",
  "after_id",
  "before_id",
  "alt",
] as const;

function queryValueOf(r: Random): string {
  switch (r.int(6)) {
    case 0:
      return r.pick([
        "1e400",
        "-1",
        "0",
        "1001",
        "NaN",
        "9007199254740993",
        "1.5",
        "",
        " 5",
        "0x10",
      ]);
    case 1:
      return r.pick([
        "2026-13-45",
        "9999-12-31T23:59:59Z",
        "0000-01-01",
        "1970-01-01",
        "2026-01-01T00:00:00%2B99:00",
        "yesterday",
      ]);
    case 2:
      return r.pick(["AAAA", "AngxAA==", "!!!", "xyz", "_-_-", "AgA", "a".repeat(3000)]);
    case 3:
      return r.pick(["asc", "desc", "sse", "json", "proto", "key_abc", "models/x"]);
    default:
      return segment(r);
  }
}

function queryString(r: Random): string {
  const pairs: string[] = [];
  for (let i = r.int(5); i > 0; i--) {
    const name = r.chance(0.8) ? r.pick(QUERY_NAMES) : segment(r).slice(0, 20);
    pairs.push(r.chance(0.1) ? name : `${name}=${queryValueOf(r)}`);
    if (r.chance(0.1)) pairs.push(`${name}=${queryValueOf(r)}`); // the same name twice
  }
  return pairs.length ? `?${pairs.join("&")}` : "";
}

const JSON_KEYS = [
  "model",
  "messages",
  "prompt",
  "name",
  "amount",
  "balance",
  "credit_limit",
  "contents",
  "input",
  "max_tokens",
  "n",
  "size",
  "stream",
  "role",
  "content",
  "parts",
  "kind",
  "price",
  "type",
  "keys",
  "models",
  "rpm",
  "system",
  "tools",
];

function jsonValue(r: Random, depth: number): unknown {
  const kind = depth > 3 ? r.int(5) : r.int(8);
  switch (kind) {
    case 0:
      return r.pick([
        0,
        -1,
        1.5,
        1e308,
        -1e308,
        9007199254740993,
        Number.MAX_SAFE_INTEGER,
        2 ** 63,
      ]);
    case 1:
      return r.pick(["", "x", "gpt-test", "gen-image-2", "vid-2", "user", "text", "\u0000", "🦊"]);
    case 2:
      return r.pick([true, false, null]);
    case 3:
      return word(r, r.int(40));
    case 4:
      return "y".repeat(r.int(5000));
    case 5:
      return Array.from({ length: r.int(4) }, () => jsonValue(r, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = r.int(6); i > 0; i--) {
        object[r.chance(0.85) ? r.pick(JSON_KEYS) : word(r, 6)] = jsonValue(r, depth + 1);
      }
      return object;
    }
  }
}

const encoder = new TextEncoder();

/** A body and the content type it goes with (which may be a lie). */
function body(r: Random): { bytes?: Uint8Array; type?: string } {
  const type = r.pick([
    "application/json",
    "application/json",
    "text/plain",
    "multipart/form-data; boundary=b0undary",
    "multipart/form-data",
    "application/x-www-form-urlencoded",
    `${word(r, 5)}/${word(r, 5)}`,
    undefined,
  ]);
  switch (r.int(10)) {
    case 0:
      return { type };
    case 1:
      return { bytes: r.bytes(r.int(2000)), type };
    case 2: // valid JSON around bytes that are not UTF-8
      return {
        bytes: Uint8Array.from([
          ...encoder.encode('{"model":"'),
          ...r.bytes(1 + r.int(8)).map((b) => b | 0x80),
          ...encoder.encode('","messages":[]}'),
        ]),
        type,
      };
    case 3: // numbers JSON.parse turns into Infinity, or rounds
      return {
        bytes: encoder.encode(
          `{"model":"gpt-test","${r.pick(JSON_KEYS)}":${
            r.pick(["1e400", "-1e400", "123456789012345678901234567890", "-0", "1e-400"])
          }}`,
        ),
        type,
      };
    case 4: { // deep nesting
      const depth = 100 + r.int(20_000);
      const open = r.pick(["[", '{"a":']);
      const close = open === "[" ? "]" : "}";
      return {
        bytes: encoder.encode(
          `{"model":"gpt-test","x":${open.repeat(depth)}1${close.repeat(depth)}}`,
        ),
        type,
      };
    }
    case 5: { // multipart, often broken, its values sometimes not UTF-8
      const chunks: Uint8Array[] = [];
      for (let i = 1 + r.int(4); i > 0; i--) {
        const name = r.pick([
          "model",
          "prompt",
          "duration",
          "ratio",
          "image",
          "image_1",
          "video",
          "mask",
          "n",
          "size",
        ]);
        const file = r.chance(0.4) ? `; filename="${word(r, 5)}.png"` : "";
        chunks.push(
          encoder.encode(
            `--b0undary\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n`,
          ),
          r.chance(0.3)
            ? r.bytes(r.int(300))
            : encoder.encode(r.chance(0.5) ? word(r, r.int(30)) : String(jsonValue(r, 3))),
          encoder.encode("\r\n"),
        );
      }
      if (r.chance(0.7)) chunks.push(encoder.encode("--b0undary--\r\n"));
      const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      return { bytes, type: r.chance(0.8) ? "multipart/form-data; boundary=b0undary" : type };
    }
    default:
      return { bytes: encoder.encode(JSON.stringify(jsonValue(r, 0))), type };
  }
}

const METHODS = ["GET", "POST", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND"];

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

interface Route {
  method: string;
  path: string;
}

function request(r: Random, routes: Route[], key: string): FuzzRequest {
  const route = r.pick(routes);
  const path = fillTemplate(r, route.path) + queryString(r);
  // Mostly the route's own method, so requests get past routing to the handlers.
  const method = r.chance(0.8) ? route.method : r.pick(METHODS);
  const headers: Record<string, string> = {};
  const credential = r.int(10);
  if (credential < 5) {
    // a valid credential, in every interface's header; the admin token on admin paths
    headers.authorization = `Bearer ${path.startsWith("/admin") ? ADMIN_TOKEN : key}`;
    headers["x-api-key"] = key;
    headers["x-goog-api-key"] = key;
  } else if (credential < 8) {
    headers.authorization = `Bearer ${r.pick(["sk-gw-", "gw-admin-", ""])}${word(r, 43)}`;
    headers["x-api-key"] = word(r, 20);
  }
  if (r.chance(0.2)) headers["anthropic-version"] = "2023-06-01";
  const { bytes, type } = body(r);
  if (type) headers["content-type"] = type;
  const withBody = method !== "GET" && method !== "HEAD" && bytes !== undefined;
  return { method, path, headers, body: withBody ? bytes : undefined };
}

type Envelope = "openai" | "anthropic" | "gemini";

/** Which error envelopes a path may answer in (the model list answers in the caller's family). */
function envelopesOf(path: string): Envelope[] {
  const pathname = path.split("?")[0];
  if (pathname.startsWith("/v1/messages")) return ["anthropic"];
  if (pathname.startsWith("/v1beta/") || /:[A-Za-z]+$/.test(pathname)) return ["gemini"];
  if (pathname === "/v1/models" || pathname.startsWith("/v1/models/")) {
    return ["openai", "anthropic", "gemini"];
  }
  return ["openai"];
}

// deno-lint-ignore no-explicit-any
function isEnvelope(body: any, envelope: Envelope, status: number): boolean {
  switch (envelope) {
    case "anthropic":
      return body?.type === "error" && typeof body.error?.type === "string" &&
        typeof body.error?.message === "string" && body.error.message.length > 0;
    case "gemini":
      return body?.error?.code === status && typeof body.error?.status === "string" &&
        typeof body.error?.message === "string" && body.error.message.length > 0;
    default:
      return typeof body?.error?.message === "string" && body.error.message.length > 0 &&
        typeof body.error?.code === "string" && typeof body.error?.type === "string";
  }
}

function describe(request: FuzzRequest): string {
  const preview = request.body
    ? ` body(${request.body.length} B)=${
      Array.from(request.body.subarray(0, 80), (b) => b.toString(16).padStart(2, "0")).join("")
    }`
    : "";
  return `${request.method} ${request.path.slice(0, 300)} ${
    JSON.stringify(request.headers)
  }${preview}`;
}

Deno.test(
  `fuzz: ${COUNT} random requests at every route: no 5xx, every error in its envelope, no charge`,
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id: keyId, key } = await gw.createKey({ name: "fuzz", balance: OPENING });
    const bystander = await gw.createKey({ name: "bystander", balance: OPENING });

    const routes: Route[] = createApp(gw.running.gateway, "unused", () => true).routes
      .filter((route) => route.method !== "ALL" && !route.path.endsWith("*"))
      .map(({ method, path }) => ({ method, path }));
    const listed = routes.map((route) => `${route.method} ${route.path}`);
    for (
      const expected of [
        "GET /healthz",
        "GET /metrics",
        "GET /media/:file",
        "POST /admin/keys/:id/credit",
        "POST /v1/chat/completions",
        "POST /v1/messages",
        "POST /v1/responses",
        "POST /v1/images/edits",
        "POST /v1/video/generations",
      ]
    ) {
      assertOk(listed.includes(expected), `${expected} not among ${listed.join(", ")}`);
    }

    const r = prng(SEED);
    const requests = Array.from({ length: COUNT }, () => request(r, routes, key));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: PARALLEL }, async () => {
      while (next < requests.length) {
        const sent = requests[next++];
        const response = await fetch(`${gw.url}${sent.path}`, {
          method: sent.method,
          headers: sent.headers,
          body: sent.body as BodyInit | undefined,
        });
        const text = await response.text();
        const status = response.status;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        // With no channel configured, a valid request for a built-in model (gen-image-2, vid-2)
        // is 503 no_available_channel: the operator's state, not a fault. Any other 5xx is.
        if (status === 503 && text.includes('"no_available_channel"')) continue;
        if (status >= 500) {
          failures.push(`${status} for ${describe(sent)}: ${text.slice(0, 300)}`);
          continue;
        }
        if (status === 429 && !response.headers.get("retry-after")) {
          failures.push(`429 without retry-after for ${describe(sent)}`);
        }
        if (status < 400 || sent.method === "HEAD") continue;
        if (sent.path.startsWith("/console")) {
          // The console's envelope is an HTML page that says what went wrong (docs/console.md).
          const page = response.headers.get("content-type")?.startsWith("text/html") &&
            text.includes('role="alert"') &&
            response.headers.get("content-security-policy")?.startsWith("default-src 'none'");
          if (!page) failures.push(`${status} not a console error page for ${describe(sent)}`);
          continue;
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          failures.push(`${status} body is not JSON for ${describe(sent)}: ${text.slice(0, 200)}`);
          continue;
        }
        const envelopes = envelopesOf(sent.path);
        if (!envelopes.some((envelope) => isEnvelope(parsed, envelope, status))) {
          failures.push(
            `${status} not in the ${envelopes.join("/")} envelope for ${describe(sent)}: ${
              text.slice(0, 300)
            }`,
          );
        }
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `fuzz: seed ${SEED.toString(16)}, ${COUNT} requests in ${seconds.toFixed(1)} s; statuses ${
        JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))
      }`,
    );
    assertEquals(
      failures.slice(0, 20),
      [],
      `seed ${SEED.toString(16)}: ${failures.length} failures, the first:\n${
        failures.slice(0, 20).join("\n")
      }`,
    );
    assertOk(seconds < COUNT / 50, `the fuzz run took ${seconds.toFixed(1)} s`);

    // The throttle slowed the wrong credentials only: the valid key still works.
    const models = await fetch(`${gw.url}/v1/models`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assertEquals(models.status, 200);
    await models.body?.cancel();
    assertEquals((await fetch(`${gw.url}/healthz`)).status, 200);

    // No money moved: the two keys are untouched, and no key anywhere has more than credits.
    await assertNothingCharged({ gw, keyId }, OPENING, { untouched: true });
    await assertNothingCharged({ gw, keyId: bystander.id }, OPENING, { untouched: true });
    let cursor = "";
    do {
      const page = await gw.admin("GET", `/admin/ledger?limit=1000&cursor=${cursor}`);
      assertEquals(page.status, 200);
      const moves = page.body.data.filter((entry: { type: string }) => entry.type !== "credit");
      assertEquals(moves, [], "ledger entries other than credits");
      cursor = page.body.cursor ?? "";
    } while (cursor);
  },
);
