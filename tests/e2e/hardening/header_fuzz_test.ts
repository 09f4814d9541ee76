/**
 * No request can take the gateway down. Every byte 0x00–0x1F and 0x7F, and non-ASCII text, goes
 * into field names and values (JSON keys and values, multipart field names, values and file
 * names) of every client request shape, and into header values (x-request-id, idempotency-key,
 * the async-task switch, the client hints) of every client route, against a gateway process with
 * every kind of channel behind it. Then: the process is alive, it still answers, nothing answered
 * 500, a field name the channel cannot honour came back percent-encoded in
 * `x-gateway-ignored-fields`, and no request that failed was charged (its request-log record
 * has no cost, its ledger entries sum to zero), with the ledger whole.
 *
 * The gateway runs as its own process: before the fix, one such request made Deno panic
 * ("invalid response header value") and the process died.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, TEST_TEXT_PRICE } from "../../helpers/gateway.ts";
import { type GatewayProcess, spawnGateway } from "../../helpers/gateway_process.ts";
import { rawRequest } from "../../helpers/raw_http.ts";
import { squarePngWithTransparency } from "../../helpers/png_fixtures.ts";
import { FAST_VIDEO_ENV, PER_SECOND } from "../../helpers/video_setup.ts";
import { IMAGE_PRICE } from "../../helpers/image_setup.ts";
import { tempDir } from "../../helpers/temp_dir.ts";
import { startOpenAIChatUpstream } from "../../upstream/openai_chat.ts";
import { startOpenAIResponsesUpstream } from "../../upstream/openai_responses.ts";
import { startAnthropicUpstream } from "../../upstream/anthropic.ts";
import { startGeminiUpstream } from "../../upstream/gemini.ts";
import { startOpenAIImagesUpstream } from "../../upstream/openai_images.ts";
import { startArkVideoUpstream } from "../../upstream/ark_video.ts";

/** Every C0 control, DEL, and non-ASCII: Latin-1, C1, a line separator, CJK, an astral, a lone surrogate, a BOM. */
const ODD = [
  ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)),
  "\x7f",
  "\x80",
  "é",
  "\x85",
  "\u2028",
  "模",
  "🦊",
  "\ud800",
  "\ufeff",
];
const show = (char: string) => `U+${char.codePointAt(0)!.toString(16).padStart(4, "0")}`;

const OPENING = 10_000_000_000;
const PARALLEL = 8;

interface Probe {
  label: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: BodyInit;
  /** The unknown field name sent, when the answer should name it as ignored. */
  ignored?: string;
  multipart?: boolean;
}

/** A multipart body written by hand, so names and file names carry any byte as it is. */
function multipart(
  fields: Array<[string, string]>,
  files: Array<{ field: string; filename: string; bytes: Uint8Array }> = [],
): { body: Uint8Array<ArrayBuffer>; type: string } {
  const boundary = "----gateway-fuzz-7d1f3a";
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const [name, value] of fields) {
    parts.push(encoder.encode(
      `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    ));
  }
  for (const file of files) {
    parts.push(encoder.encode(
      `--${boundary}\r\ncontent-disposition: form-data; name="${file.field}"; ` +
        `filename="${file.filename}"\r\ncontent-type: image/png\r\n\r\n`,
    ));
    parts.push(file.bytes, encoder.encode("\r\n"));
  }
  parts.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

const PNG = squarePngWithTransparency(64);

/**
 * Each JSON request shape of the client interfaces, with `text` in its prompt and `extra` beside
 * its fields. `converts` says the answer names an unknown field as ignored (a converted text
 * path, or an image or video request); a pass-through carries it upstream instead.
 */
function jsonShapes(
  text: string,
): Array<
  { label: string; path: string; body: object; converts: boolean; headers?: Record<string, string> }
> {
  const chat = (model: string, stream: boolean) => ({
    model,
    stream,
    max_tokens: 32,
    messages: [{ role: "user", content: text }],
  });
  const responses = (model: string, stream: boolean) => ({ model, stream, input: text });
  const messages = (model: string, stream: boolean) => ({
    model,
    stream,
    max_tokens: 32,
    messages: [{ role: "user", content: text }],
  });
  const contents = { contents: [{ role: "user", parts: [{ text }] }] };
  return [
    {
      label: "chat → anthropic",
      path: "/v1/chat/completions",
      body: chat("m-anthropic", false),
      converts: true,
    },
    {
      label: "chat stream → gemini",
      path: "/v1/chat/completions",
      body: chat("m-gemini", true),
      converts: true,
    },
    {
      label: "chat → openai",
      path: "/v1/chat/completions",
      body: chat("m-openai", false),
      converts: false,
    },
    {
      label: "responses → openai",
      path: "/v1/responses",
      body: responses("m-openai", false),
      converts: true,
    },
    {
      label: "responses stream → anthropic",
      path: "/v1/responses",
      body: responses("m-anthropic", true),
      converts: true,
    },
    {
      label: "messages → gemini",
      path: "/v1/messages",
      body: messages("m-gemini", false),
      converts: true,
    },
    {
      label: "messages stream → responses",
      path: "/v1/messages",
      body: messages("m-responses", true),
      converts: true,
    },
    {
      label: "count_tokens",
      path: "/v1/messages/count_tokens",
      body: { model: "m-anthropic", messages: [{ role: "user", content: text }] },
      converts: false,
    },
    {
      label: "generateContent → openai",
      path: "/v1beta/models/m-openai:generateContent",
      body: contents,
      converts: true,
    },
    {
      label: "streamGenerateContent → anthropic",
      path: "/v1beta/models/m-anthropic:streamGenerateContent?alt=sse",
      body: contents,
      converts: true,
    },
    {
      label: "v1 generateContent → responses",
      path: "/v1/models/m-responses:generateContent",
      body: contents,
      converts: true,
    },
    {
      label: "images",
      path: "/v1/images/generations",
      body: { model: "gen-image-2", prompt: text },
      converts: true,
    },
    {
      label: "images async",
      path: "/v1/images/generations",
      body: { model: "gen-image-2", prompt: text },
      converts: true,
      headers: { "x-gateway-async-task": "true" },
    },
  ];
}

/** The probes for one odd character `char`. */
function probesFor(char: string): Probe[] {
  const probes: Probe[] = [];
  const name = `f${char}x`;
  for (const shape of jsonShapes("Hello")) {
    // An unknown field whose name holds the character.
    probes.push({
      label: `${shape.label}: field name ${show(char)}`,
      method: "POST",
      path: shape.path,
      headers: { "content-type": "application/json", ...shape.headers },
      body: JSON.stringify({ ...shape.body, [name]: 1 }),
      ignored: shape.converts ? name : undefined,
    });
  }
  for (const shape of jsonShapes(`a${char}b`)) {
    // The character in the prompt, and in an unknown field's value and in `user`.
    probes.push({
      label: `${shape.label}: values ${show(char)}`,
      method: "POST",
      path: shape.path,
      headers: { "content-type": "application/json", ...shape.headers },
      body: JSON.stringify({ ...shape.body, note: `v${char}`, user: `u${char}` }),
    });
  }
  for (const async of [false, true]) {
    const edit = multipart(
      [["model", "gen-image-2"], ["prompt", `a hat${char}`], [name, `v${char}`]],
      [{ field: "image", filename: `i${char}.png`, bytes: PNG }],
    );
    probes.push({
      label: `edits${async ? " async" : ""}: form names, values, file name ${show(char)}`,
      method: "POST",
      path: "/v1/images/edits",
      headers: { "content-type": edit.type, ...async ? { "x-gateway-async-task": "1" } : {} },
      body: edit.body,
      ignored: name,
      multipart: true,
    });
  }
  const video = multipart([["model", "vid-2"], ["prompt", `a kite${char}`], ["duration", "5"], [
    name,
    `v${char}`,
  ]]);
  probes.push({
    label: `video: form names and values ${show(char)}`,
    method: "POST",
    path: "/v1/video/generations",
    headers: { "content-type": video.type },
    body: video.body,
    ignored: name,
    multipart: true,
  });
  return probes;
}

/** Every client route, for the header probes: what to send so that it gets past validation. */
function routeRequests(taskIds: { image?: string; video?: string }) {
  const json = (path: string, body: object) => ({
    method: "POST",
    path,
    body: new TextEncoder().encode(JSON.stringify(body)),
    type: "application/json",
  });
  const video = multipart([["model", "vid-2"], ["prompt", "a kite"], ["duration", "5"]]);
  const edit = multipart([["model", "gen-image-2"], ["prompt", "a hat"]], [{
    field: "image",
    filename: "a.png",
    bytes: PNG,
  }]);
  return [
    json("/v1/chat/completions", {
      model: "m-anthropic",
      messages: [{ role: "user", content: "Hi" }],
    }),
    json("/v1/chat/completions", {
      model: "m-openai",
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    }),
    json("/v1/responses", { model: "m-gemini", input: "Hi" }),
    json("/v1/messages", {
      model: "m-openai",
      max_tokens: 32,
      messages: [{ role: "user", content: "Hi" }],
    }),
    json("/v1/messages/count_tokens", {
      model: "m-anthropic",
      messages: [{ role: "user", content: "Hi" }],
    }),
    json("/v1beta/models/m-anthropic:generateContent", { contents: [{ parts: [{ text: "Hi" }] }] }),
    json("/v1/models/m-gemini:streamGenerateContent?alt=sse", {
      contents: [{ parts: [{ text: "Hi" }] }],
    }),
    json("/v1/images/generations", { model: "gen-image-2", prompt: "a kite" }),
    { method: "POST", path: "/v1/images/edits", body: edit.body, type: edit.type },
    { method: "POST", path: "/v1/video/generations", body: video.body, type: video.type },
    { method: "GET", path: "/v1/models" },
    { method: "GET", path: "/v1/models/m-openai" },
    { method: "GET", path: "/v1beta/models" },
    { method: "GET", path: "/v1beta/models/m-gemini" },
    { method: "GET", path: `/v1/images/tasks/${taskIds.image ?? "task_missing"}` },
    { method: "GET", path: `/v1/video/generations/${taskIds.video ?? "task_missing"}` },
    { method: "GET", path: "/v1/me" },
    { method: "GET", path: "/v1/me/usage" },
    { method: "GET", path: "/v1/me/requests" },
    { method: "GET", path: "/v1/me/ledger" },
    { method: "GET", path: "/media/med_missing.png" },
  ] as Array<{ method: string; path: string; body?: Uint8Array; type?: string }>;
}

/** Header names whose values a client chooses and the gateway reads. */
const HEADER_NAMES = [
  "x-request-id",
  "idempotency-key",
  "x-gateway-async-task",
  "x-gateway-strict-fields",
  "anthropic-beta",
  "anthropic-version",
  "user-agent",
  "x-forwarded-for",
];

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

/** A gateway process with a model on every kind of channel, each on its simulator. */
async function startEverything(stack: AsyncDisposableStack, kvPath: string) {
  const chat = stack.use(startOpenAIChatUpstream());
  const responses = stack.use(startOpenAIResponsesUpstream());
  const anthropic = stack.use(startAnthropicUpstream());
  const gemini = stack.use(startGeminiUpstream());
  const images = startOpenAIImagesUpstream();
  stack.defer(() => images.close());
  const ark = startArkVideoUpstream();
  stack.defer(() => ark.close());
  const gw: GatewayProcess = stack.use(
    await spawnGateway({
      ...FAST_VIDEO_ENV,
      GATEWAY_KV: kvPath,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEWAY_TASK_POLL_MS: "50",
    }),
  );
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gw.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // deno-lint-ignore no-explicit-any
    return { status: response.status, body: await response.json() as any };
  };
  const text = [
    ["openai", chat.baseUrl, "m-openai", "sk-upstream-test"],
    ["openai-responses", responses.baseUrl, "m-responses", "sk-upstream-test"],
    ["anthropic", anthropic.baseUrl, "m-anthropic", "sk-ant-upstream-test"],
    ["gemini", gemini.baseUrl, "m-gemini", "gemini-upstream-test"],
  ] as const;
  for (const [type, baseUrl, model, upstreamKey] of text) {
    await admin("PUT", `/admin/models/${model}`, { kind: "text", price: TEST_TEXT_PRICE });
    await admin("POST", "/admin/channels", {
      name: type,
      type,
      base_url: baseUrl,
      keys: [upstreamKey],
      models: [model],
      model_map: { [model]: `${model}-upstream` },
    });
  }
  await admin("PUT", "/admin/models/gen-image-2", { kind: "image", price: IMAGE_PRICE });
  await admin("POST", "/admin/channels", {
    name: "images",
    type: "openai-images",
    base_url: images.baseUrl,
    keys: ["sk-upstream-test"],
    models: ["gen-image-2"],
  });
  await admin("PUT", "/admin/models/vid-2", { kind: "video", price: { per_second: PER_SECOND } });
  await admin("POST", "/admin/channels", {
    name: "ark",
    type: "ark-video",
    base_url: ark.baseUrl,
    keys: ["ark-upstream-test"],
    models: ["vid-2"],
  });
  const created = await admin("POST", "/admin/keys", { name: "fuzz", balance: OPENING });
  assertEquals(created.status, 201, JSON.stringify(created.body));
  return { gw, admin, keyId: created.body.id as string, key: created.body.key as string };
}

Deno.test(
  "header fuzz: control characters and non-ASCII in every field name, value and header of every route never take the process down, and failures cost nothing",
  serverTest,
  async () => {
    await using dir = await tempDir();
    await using stack = new AsyncDisposableStack();
    const { gw, admin, keyId, key } = await startEverything(stack, `${dir.path}/g.kv`);
    let exited = false;
    gw.child.status.then(() => exited = true);

    const failed: Array<{ id: string; path: string }> = []; // answers >= 400
    const problems: string[] = [];
    const taskIds: { image?: string; video?: string } = {};
    const probes = ODD.flatMap(probesFor);
    await inParallel(probes, async (probe) => {
      let response: Response;
      try {
        response = await fetch(`${gw.url}${probe.path}`, {
          method: probe.method,
          headers: { authorization: `Bearer ${key}`, ...probe.headers },
          body: probe.body,
        });
      } catch (error) {
        problems.push(`${probe.label}: no answer (${(error as Error).message})`);
        return;
      }
      const body = await response.text().catch((error) => `(body broke: ${error.message})`);
      const id = response.headers.get("x-request-id");
      if (response.status >= 500) {
        problems.push(`${probe.label}: ${response.status} ${body.slice(0, 300)}`);
      }
      if (response.status >= 400 && id) failed.push({ id, path: probe.path });
      if (response.status === 200 && probe.ignored !== undefined) {
        const header = response.headers.get("x-gateway-ignored-fields") ?? "";
        const named = header.split(",").map((item) => decodeURIComponent(item));
        // Every item is percent-encoded visible ASCII; a JSON name comes back exactly (a
        // multipart parser may read a name with a raw line break in it its own way).
        const encoded = /^[\x21-\x7e]+$/.test(header);
        const exact = probe.multipart || named.includes(probe.ignored.toWellFormed());
        if (!encoded || !exact) {
          problems.push(`${probe.label}: x-gateway-ignored-fields ${JSON.stringify(header)}`);
        }
      }
      if (
        response.status === 200 && probe.path === "/v1/images/generations" &&
        probe.headers?.["x-gateway-async-task"]
      ) {
        taskIds.image ??= JSON.parse(body).data?.task_id;
      }
      if (response.status === 200 && probe.path === "/v1/video/generations") {
        taskIds.video ??= JSON.parse(body).id;
      }
    });

    // Header values: over raw TCP, since fetch refuses to send most of these.
    const headerProbes = ODD.flatMap((char) =>
      routeRequests(taskIds).flatMap((route) => HEADER_NAMES.map((name) => ({ char, route, name })))
    ).filter((_, index) => index % 3 === 0); // every char, route and name, not every triple
    await inParallel(headerProbes, async ({ char, route, name }) => {
      const label = `${route.method} ${route.path}: header ${name} ${show(char)}`;
      const answer = await rawRequest(gw.url, {
        method: route.method,
        path: route.path,
        headers: [
          ["authorization", `Bearer ${key}`],
          ...route.type ? [["content-type", route.type] as [string, string]] : [],
          [name, `a${char}b`],
        ],
        body: route.body,
      }).catch((error) => ({
        status: -1,
        headers: new Map<string, string>(),
        body: new TextEncoder().encode((error as Error).message),
      }));
      const text = new TextDecoder().decode(answer.body).slice(0, 300);
      // 0: the connection was refused or dropped by Deno's HTTP parser; that is no answer, but
      // it is no crash either (the process is checked below).
      if (answer.status >= 500 || answer.status < 0) {
        problems.push(`${label}: ${answer.status} ${text}`);
      }
      const id = answer.headers.get("x-request-id");
      if (answer.status >= 400 && id) failed.push({ id, path: route.path });
    });

    // The process is alive and answers, paid requests included.
    const stderr = () =>
      Promise.race([
        gw.stderr,
        new Promise<string>((resolve) => setTimeout(() => resolve(""), 50)),
      ]);
    assertEquals(exited, false, `the gateway process died: ${await stderr()}`);
    assertEquals((await fetch(`${gw.url}/healthz`)).status, 200);
    // The two names of the report: an image request is served and charged its price, once.
    for (const [name, encoded] of [["\u0000", "%00"], ["\u0001", "%01"]]) {
      const after = await fetch(`${gw.url}/v1/images/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gen-image-2", prompt: "after the fuzz", [name]: 1 }),
      });
      assertEquals(after.status, 200, await after.text());
      assertEquals(after.headers.get("x-gateway-ignored-fields"), encoded);
      const ref = after.headers.get("x-request-id")!;
      let charged = 0;
      for (let i = 0; i < 100 && charged === 0; i++) {
        const page = await admin("GET", `/admin/ledger?key=${keyId}&order=desc&limit=100`);
        const mine = (page.body.data as Array<{ ref: string; type: string; amount: number }>)
          .filter((entry) => entry.ref === ref);
        if (mine.some((entry) => entry.type === "settle")) {
          charged = -mine.reduce((sum, entry) => sum + entry.amount, 0);
        } else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assertEquals(charged, IMAGE_PRICE.per_image, `${encoded}: charged ${charged}`);
    }
    assertEquals(exited, false, "the gateway process died");
    assertEquals(problems, [], `${problems.length} problems:\n${problems.slice(0, 40).join("\n")}`);

    // No failed request was charged: its logged record has no cost, its ledger entries net zero.
    assertOk(failed.length > 0, "the fuzz had no failures to check");
    // Hosted media and the key's own pages are not logged (routes/middleware.ts).
    const logged = failed.filter(({ path }) => !/^\/(media\/|v1\/me)/.test(path));
    for (const { id } of logged) {
      let record: { status: number; body: { cost?: number | null; status?: number } } | undefined;
      for (let i = 0; i < 100; i++) {
        record = await admin("GET", `/admin/requests/${id}`);
        if (record.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assertEquals(record!.status, 200, `no request-log record for ${id}`);
      assertOk(
        !record!.body.cost,
        `failed request ${id} (${record!.body.status}) cost ${record!.body.cost}`,
      );
    }
    const entries: Array<{ ref: string; amount: number }> = [];
    let cursor = "";
    do {
      const page = await admin(
        "GET",
        `/admin/ledger?key=${keyId}&order=asc&limit=1000&cursor=${cursor}`,
      );
      entries.push(...page.body.data);
      cursor = page.body.cursor ?? "";
    } while (cursor);
    const failedIds = new Set(failed.map(({ id }) => id));
    const net = new Map<string, number>();
    for (const entry of entries) {
      if (failedIds.has(entry.ref)) net.set(entry.ref, (net.get(entry.ref) ?? 0) + entry.amount);
    }
    assertEquals(
      [...net].filter(([, amount]) => amount !== 0),
      [],
      "failed requests with money taken",
    );
  },
);
