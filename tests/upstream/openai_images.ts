/**
 * A simulated OpenAI Images upstream (`/v1/images/generations` and `/v1/images/edits`). It answers
 * like a gpt-image model — base64 PNGs, token usage, `response_format` refused — or, on request,
 * like a DALL·E-style relay (URLs to download, or data URLs inside `b64_json`). It can misbehave:
 * error statuses, a hang, malformed JSON, a connection reset, an empty `data` list.
 *
 * Every image is a real, distinct 8x8 PNG (colour derived from the operation, the prompt and the
 * image's index), kept in `images` by id so tests can compare bytes end to end.
 *
 * The server sits behind a small TCP relay so that the `reset` fault can drop the client's
 * connection before any byte of an answer is written (as a real connection reset does): the
 * client's fetch rejects, it never sees a status. Answers carry `connection: close` (one request
 * per connection), because Deno's fetch silently retries once when a reused keep-alive connection
 * drops — that would swallow the reset.
 */

import { solidPng } from "../helpers/png_fixtures.ts";
import { type ListedModel, modelListAnswer } from "./model_lists.ts";

export type ImagesFault =
  | { kind: "status"; status: number; message?: string; retryAfter?: string; code?: string }
  /** Never answers; the request ends when the client aborts. */
  | { kind: "hang" }
  /** 200 with a truncated JSON body. */
  | { kind: "malformed" }
  /** Drops the TCP connection without writing any answer: the client's fetch rejects. */
  | { kind: "reset" }
  /** 200 with `data: []`. */
  | { kind: "empty" };

export interface ImagesRecordedFile {
  field: string;
  filename: string;
  type: string;
  size: number;
  bytes: Uint8Array;
}

export interface ImagesRecordedRequest {
  path: string;
  authorization: string | null;
  contentType: string | null;
  /** The JSON body, or the text fields of a multipart body (values stay strings). */
  body: Record<string, unknown>;
  /** Files of a multipart body, in order. */
  files: ImagesRecordedFile[];
}

export interface OpenAIImagesUpstreamOptions {
  /** What its model list (GET /v1/models) answers; see model_lists.ts. */
  listedModels?: ListedModel[];
  /** Upstream keys accepted; others get 401. Default ["sk-upstream-test"]. */
  keys?: string[];
  /**
   * How images are returned: "b64_json" (gpt-image, default), "url" (DALL·E style, served by
   * this simulator under /files/), "data_url" (a `data:image/png;base64,…` string in `b64_json`,
   * as some relays do), "data_url_in_url" (that data URL in `url`, as other relays do).
   */
  answer?: "b64_json" | "url" | "data_url" | "data_url_in_url";
  /** The `url` every image is answered with in place of a download (e.g. `javascript:…`). */
  resultUrl?: string;
  /** Most images returned per request, whatever `n` asks for. Default 10. */
  maxImagesPerRequest?: number;
  /** Adds `revised_prompt` to each item. */
  revisedPrompt?: boolean;
  /** Milliseconds to wait before answering (or failing); ends early if the client goes away. */
  delayMs?: number;
  /** gpt-image style `usage` in the answer. Default true. */
  usage?: boolean;
  /**
   * What the "images" really are, whatever the answer mode: real PNGs (default), or an HTML page
   * or an SVG with a script — still labelled `image/png` everywhere (a data URL's type, the
   * `content-type` of a /files/ download), as a broken or hostile upstream might.
   */
  payload?: ImagePayload;
}

/** What a simulated image's bytes really are. */
export type ImagePayload = "png" | "html" | "svg";

/** The HTML page a simulator answers in place of an image when told to. */
export const HTML_PAYLOAD =
  "<!DOCTYPE html><html><body><script>fetch('/admin/keys').then(r => r.text()).then(alert)</script></body></html>";
/** The SVG (script-capable) a simulator answers in place of an image when told to. */
export const SVG_PAYLOAD =
  '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><script>alert(document.domain)</script></svg>';

/** The bytes of a simulated image: `png`, or the HTML or SVG payload in its place. */
export function payloadBytes(payload: ImagePayload | undefined, png: Uint8Array): Uint8Array {
  if (payload === "html") return new TextEncoder().encode(HTML_PAYLOAD);
  if (payload === "svg") return new TextEncoder().encode(SVG_PAYLOAD);
  return png;
}

export interface OpenAIImagesUpstream extends AsyncDisposable {
  /** Base URL as the OpenAI SDK takes it (ends with /v1). */
  baseUrl: string;
  /** http://127.0.0.1:port */
  origin: string;
  requests: ImagesRecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  faults: ImagesFault[];
  /** A fault applied to every request while set. */
  fault?: ImagesFault;
  options: OpenAIImagesUpstreamOptions;
  /** Every image served, by id (the id is also the file name under /files/). */
  images: Map<string, Uint8Array>;
  /** Ids downloaded through GET /files/{id}.png, in order. */
  downloads: string[];
  /** Shuts the simulator down; `await using` does the same through `Symbol.asyncDispose`. */
  close(): Promise<void>;
}

/** The colour of image `index` for a seed (e.g. operation + prompt); distinct for indices < 256. */
export function simulatedImageColor(seed: string, index: number): [number, number, number, number] {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(seed)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return [
    (h + index * 67) & 255,
    ((h >>> 8) + index * 29) & 255,
    ((h >>> 16) + index * 101) & 255,
    255,
  ];
}

// ---------------------------------------------------------------------------------------------

/** Output tokens per image, by quality, for square and for non-square sizes (gpt-image-1). */
export const IMAGE_OUTPUT_TOKENS: Record<string, [number, number]> = {
  low: [272, 408],
  medium: [1056, 1584],
  high: [4160, 6240],
};
/** Input tokens the simulator counts per input image of an edit. */
export const INPUT_IMAGE_TOKENS = 194;

/** The gpt-image style usage the simulator reports. `quality` "auto"/absent counts as medium. */
export function simulatedImagesUsage(
  prompt: string,
  inputImages: number,
  outputImages: number,
  quality?: string,
  size?: string,
) {
  const textTokens = Math.max(1, Math.ceil(prompt.length / 4));
  const imageTokens = inputImages * INPUT_IMAGE_TOKENS;
  const [square, oblong] = IMAGE_OUTPUT_TOKENS[quality ?? ""] ?? IMAGE_OUTPUT_TOKENS.medium;
  const dims = /^(\d+)x(\d+)$/.exec(size ?? "");
  const perImage = dims && dims[1] !== dims[2] ? oblong : square;
  const output = outputImages * perImage;
  return {
    input_tokens: textTokens + imageTokens,
    output_tokens: output,
    total_tokens: textTokens + imageTokens + output,
    input_tokens_details: { text_tokens: textTokens, image_tokens: imageTokens },
  };
}

/** The bytes of an answer item, whatever the mode (fetches URLs). */
export async function imageBytesFromItem(item: { b64_json?: string; url?: string }) {
  if (item.url) return new Uint8Array(await (await fetch(item.url)).arrayBuffer());
  const b64 = item.b64_json ?? "";
  return Uint8Array.fromBase64(b64.startsWith("data:") ? b64.slice(b64.indexOf(",") + 1) : b64);
}

function errorResponse(
  status: number,
  message: string,
  extra: { param?: string | null; code?: string | null; type?: string; retryAfter?: string } = {},
) {
  const type = extra.type ??
    (status === 429
      ? "rate_limit_error"
      : status >= 500
      ? "server_error"
      : "invalid_request_error");
  const code = extra.code !== undefined
    ? extra.code
    : status === 429
    ? "rate_limit_exceeded"
    : `sim_${status}`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (extra.retryAfter) headers["retry-after"] = extra.retryAfter;
  return new Response(
    JSON.stringify({ error: { message, type, param: extra.param ?? null, code } }),
    { status, headers },
  );
}

const IMAGE_FIELDS = new Set(["image", "image[]"]);
const MASK_FIELDS = new Set(["mask", "mask[]"]);
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp"]);

/** Starts the simulator on a free loopback port. */
export function startOpenAIImagesUpstream(
  options: OpenAIImagesUpstreamOptions = {},
): OpenAIImagesUpstream {
  const keys = options.keys ?? ["sk-upstream-test"];
  const listedModels = options.listedModels ?? [{ id: "gpt-image-1" }, { id: "dall-e-3" }];
  const closing = new AbortController();
  const state: OpenAIImagesUpstream = {
    baseUrl: "",
    origin: "",
    requests: [],
    faults: [],
    options,
    images: new Map(),
    downloads: [],
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };

  /** Relay links by the relay's local port on the inner connection (= the handler's remote port). */
  const links = new Map<number, { outer: Deno.Conn; inner: Deno.Conn }>();
  const drop = (...conns: Array<Deno.Conn | undefined>) => {
    for (const conn of conns) {
      try {
        conn?.close();
      } catch {
        // already closed
      }
    }
  };

  /** Waits `ms` (forever if undefined); false when the client went away or the server closes. */
  const wait = (signal: AbortSignal, ms?: number) =>
    new Promise<boolean>((resolve) => {
      if (signal.aborted || closing.signal.aborted) return resolve(false);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        closing.signal.removeEventListener("abort", onAbort);
        resolve(ok);
      };
      const onAbort = () => done(false);
      const timer = ms === undefined ? undefined : setTimeout(() => done(true), ms);
      signal.addEventListener("abort", onAbort);
      closing.signal.addEventListener("abort", onAbort);
    });

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req, info) => {
      const response = await handle(req, info);
      // No keep-alive: Deno's fetch silently retries a request once when a *reused* connection
      // drops, which would hide the `reset` fault. One request per connection keeps it visible.
      response.headers.set("connection", "close");
      return response;
    },
  );

  async function handle(req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) {
    const url = new URL(req.url);
    const listed = modelListAnswer(req, { dialect: "openai", keys, models: listedModels });
    if (listed) return listed;
    const file = /^\/files\/([\w-]+)\.png$/.exec(url.pathname);
    if (req.method === "GET" && file) {
      const bytes = state.images.get(file[1]);
      if (!bytes) return errorResponse(404, "File not found", { code: null });
      state.downloads.push(file[1]);
      return new Response(new Uint8Array(bytes), { headers: { "content-type": "image/png" } });
    }
    const isEdit = url.pathname === "/v1/images/edits";
    if (req.method !== "POST" || !(isEdit || url.pathname === "/v1/images/generations")) {
      return errorResponse(404, `Invalid URL (${req.method} ${url.pathname})`, { code: null });
    }

    const authorization = req.headers.get("authorization");
    const contentType = req.headers.get("content-type");
    const record: ImagesRecordedRequest = {
      path: url.pathname,
      authorization,
      contentType,
      body: {},
      files: [],
    };
    state.requests.push(record);
    let parseError: string | undefined;
    if (contentType?.toLowerCase().startsWith("multipart/form-data")) {
      try {
        for (const [field, value] of await req.formData()) {
          if (typeof value === "string") {
            record.body[field] = value;
          } else {
            const bytes = new Uint8Array(await value.arrayBuffer());
            record.files.push({
              field,
              filename: value.name,
              type: value.type,
              size: bytes.length,
              bytes,
            });
          }
        }
      } catch {
        parseError = "Could not parse multipart form";
      }
    } else {
      try {
        const parsed = await req.json();
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw 0;
        record.body = parsed;
      } catch {
        parseError =
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";
      }
    }

    if (!authorization?.startsWith("Bearer ") || authorization.length <= 7) {
      return errorResponse(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        { code: null },
      );
    }
    const key = authorization.slice(7);
    if (!keys.includes(key)) {
      return errorResponse(
        401,
        `Incorrect API key provided: ${key.slice(0, 3)}***${
          key.slice(-4)
        }. You can find your API key at https://platform.openai.com/account/api-keys.`,
        { code: "invalid_api_key" },
      );
    }
    if (parseError) return errorResponse(400, parseError, { code: null });

    const invalid = validate(record, isEdit);
    if (invalid) return invalid;

    const fault = state.faults.shift() ?? state.fault;
    if (options.delayMs && !(await wait(req.signal, options.delayMs))) {
      return new Response(null, { status: 499 });
    }
    if (fault?.kind === "status") {
      return errorResponse(fault.status, fault.message ?? "Simulated failure", {
        code: fault.code,
        retryAfter: fault.retryAfter,
      });
    }
    if (fault?.kind === "hang") {
      await wait(req.signal);
      return new Response(null, { status: 499 });
    }
    if (fault?.kind === "reset") {
      // Closing both sides of the relay link loses this answer before any byte is written.
      const link = links.get(info.remoteAddr.port);
      drop(link?.outer, link?.inner);
      return new Response(null, { status: 500 });
    }
    if (fault?.kind === "malformed") {
      return new Response('{"created": 1700000000, "data": [{"b64_json": "iVBORw0KGgo', {
        headers: { "content-type": "application/json" },
      });
    }
    if (fault?.kind === "empty") {
      return Response.json({ created: Math.floor(Date.now() / 1000), data: [] });
    }
    return Response.json(answer(record, isEdit));
  }

  function validate(record: ImagesRecordedRequest, isEdit: boolean): Response | undefined {
    const body = record.body;
    if ("response_format" in body) {
      return errorResponse(400, "Unknown parameter: 'response_format'.", {
        param: "response_format",
        code: "unknown_parameter",
      });
    }
    if (typeof body.prompt !== "string" || body.prompt === "") {
      return errorResponse(400, "Missing required parameter: 'prompt'.", {
        param: "prompt",
        code: "missing_required_parameter",
      });
    }
    if (body.n !== undefined) {
      const n = typeof body.n === "string" && /^\d+$/.test(body.n) ? Number(body.n) : body.n;
      if (typeof n !== "number" || !Number.isInteger(n)) {
        return errorResponse(
          400,
          `Invalid type for 'n': expected an integer, but got ${typeof body.n} instead.`,
          { param: "n", code: "invalid_type" },
        );
      }
      if (n < 1 || n > 10) {
        const below = n < 1;
        return errorResponse(
          400,
          `Invalid 'n': integer ${
            below ? "below minimum" : "above maximum"
          } value. Expected a value ${
            below ? "greater than or equal to 1" : "less than or equal to 10"
          }, but got ${n} instead.`,
          { param: "n", code: below ? "integer_below_min_value" : "integer_above_max_value" },
        );
      }
    }
    if (!isEdit) return undefined;
    if (!record.files.some((f) => IMAGE_FIELDS.has(f.field))) {
      return errorResponse(400, "Missing required parameter: 'image'.", {
        param: "image",
        code: "missing_required_parameter",
      });
    }
    for (const file of record.files) {
      if (!IMAGE_FIELDS.has(file.field) && !MASK_FIELDS.has(file.field)) continue;
      const byName = /\.(png|jpe?g|webp)$/i.test(file.filename);
      if (!IMAGE_TYPES.has(file.type) && !byName) {
        return errorResponse(
          400,
          `Invalid file '${file.field}': unsupported mimetype ('${
            file.type || "application/octet-stream"
          }'). Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.`,
          { param: file.field, code: "unsupported_file_mimetype" },
        );
      }
    }
    return undefined;
  }

  function answer(record: ImagesRecordedRequest, isEdit: boolean) {
    const body = record.body;
    const prompt = body.prompt as string;
    const n = body.n === undefined ? 1 : Number(body.n);
    const count = Math.max(0, Math.min(n, options.maxImagesPerRequest ?? 10));
    const inputImages = record.files.filter((f) => IMAGE_FIELDS.has(f.field)).length;
    const data = Array.from({ length: count }, (_, index) => {
      const png = payloadBytes(
        options.payload,
        solidPng(8, 8, simulatedImageColor(`${isEdit ? "edit" : "generate"}:${prompt}`, index)),
      );
      const id = `img_${crypto.randomUUID().replaceAll("-", "")}`;
      state.images.set(id, png);
      const item: Record<string, string> = {};
      const mode = options.answer ?? "b64_json";
      if (options.resultUrl !== undefined) item.url = options.resultUrl;
      else if (mode === "url") item.url = `${state.origin}/files/${id}.png`;
      else if (mode === "data_url") item.b64_json = `data:image/png;base64,${png.toBase64()}`;
      else if (mode === "data_url_in_url") item.url = `data:image/png;base64,${png.toBase64()}`;
      else item.b64_json = png.toBase64();
      if (options.revisedPrompt) item.revised_prompt = `A detailed rendering of: ${prompt}`;
      return item;
    });
    return {
      created: Math.floor(Date.now() / 1000),
      data,
      ...(options.usage === false ? {} : {
        usage: simulatedImagesUsage(
          prompt,
          inputImages,
          count,
          body.quality as string | undefined,
          body.size as string | undefined,
        ),
      }),
    };
  }

  // The relay the clients talk to: one inner connection per client connection.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  (async () => {
    for await (const outer of listener) {
      (async () => {
        let inner: Deno.Conn;
        try {
          inner = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
        } catch {
          return drop(outer);
        }
        const port = (inner.localAddr as Deno.NetAddr).port;
        const link = { outer, inner };
        links.set(port, link);
        await Promise.race([
          outer.readable.pipeTo(inner.writable).catch(() => {}),
          inner.readable.pipeTo(outer.writable).catch(() => {}),
        ]);
        links.delete(port);
        drop(outer, inner);
      })();
    }
  })().catch(() => {});

  state.origin = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  state.baseUrl = `${state.origin}/v1`;
  state.close = async () => {
    closing.abort();
    try {
      listener.close();
    } catch {
      // already closed
    }
    for (const link of links.values()) drop(link.outer, link.inner);
    links.clear();
    await server.shutdown();
  };
  return state;
}
