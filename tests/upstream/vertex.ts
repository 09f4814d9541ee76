/**
 * A simulated Google Cloud Vertex AI, as strict as the real one where the gateway meets it:
 *
 * - an OAuth token endpoint (`POST /token`, the `token_uri` of the service account keys it
 *   makes) that takes only the JWT-bearer grant, verifies the assertion's RS256 signature
 *   against the account's public key (the account found by `iss`, the key by `kid`), and refuses
 *   a wrong signature, an unknown account, a wrong audience or scope, and an expired JWT or one
 *   living longer than an hour, with Google's `{error, error_description}` answers; it issues
 *   opaque tokens with `expires_in`;
 * - the model methods under `/v1/projects/{project}/locations/{location}/publishers/…`, which
 *   refuse a missing, unknown, expired or revoked bearer token (401 UNAUTHENTICATED in Google's
 *   envelope), another project (403) or location (404), then serve
 *   - Google's models (`:generateContent`, `:streamGenerateContent`, SSE with `alt=sse`) by the
 *     Gemini simulator (gemini.ts), the wire format being the same;
 *   - Anthropic's (`:rawPredict`, `:streamRawPredict`) by the Anthropic simulator
 *     (anthropic.ts), once the body is checked as Vertex checks it: `anthropic_version`
 *     `vertex-2023-10-16`, no `model` (the URL names it), `stream` matching the method;
 *   - token counts: Google's `:countTokens` (Vertex's CountTokensRequest: `contents`,
 *     `systemInstruction`, `tools`, `generationConfig`, `model`, `instances`, any other field
 *     refused; answered `{totalTokens, totalBillableCharacters, promptTokensDetails}`), and
 *     Claude's `publishers/anthropic/models/count-tokens:rawPredict` (Anthropic's count_tokens
 *     body with `model` in it, `anthropic_version` `vertex-2023-10-16` if given) in the
 *     locations that offer it (`claudeCountLocations`; elsewhere 404 as for a model not
 *     offered there); both count as the simulators count a call's input tokens;
 *   - text embeddings: Google's embedding models' `:predict` (vertex_embeddings.ts); `predictFaults`
 *     answer the next calls in Google's envelope;
 *   - Imagen: `:predict` of the Imagen models (vertex_imagen.ts), any other method refused;
 *     Gemini image models draw through `:generateContent` (the Gemini simulator's images).
 *
 * - Model Garden's publisher model list, `GET /v1beta1/publishers/{publisher}/models`
 *   (`publishers.models.list`): the same bearer token checks, `pageSize` (negative refused,
 *   above 100 taken as 100, default 50) and `pageToken` (only one it issued for that publisher,
 *   else 400 INVALID_ARGUMENT); `{publisherModels: [{name: "publishers/{p}/models/{id}",
 *   versionId, openSourceCategory, launchStage, publisherModelTemplate}], nextPageToken}`.
 *
 * Its clock is its own (`advance`), so a test can expire the tokens it issued without waiting.
 */

import { type GeminiUpstream, startGeminiUpstream, statusName } from "./gemini.ts";
import { type AnthropicUpstream, startAnthropicUpstream } from "./anthropic.ts";
import { simulatorOnError } from "./text_script.ts";
import type { EmbeddingsFault } from "./openai_embeddings.ts";
import { isVertexEmbeddingModel, vertexPredict } from "./vertex_embeddings.ts";
import { imagenPredict, isImagenModel } from "./vertex_imagen.ts";

export const VERTEX_PROJECT = "sim-project-1";
export const VERTEX_LOCATION = "us-central1";
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";
/** The locations whose Claude models count tokens, as Google's documentation lists them. */
export const CLAUDE_COUNT_LOCATIONS = [
  "us-east5",
  "europe-west1",
  "asia-southeast1",
  "us-central1",
  "europe-west4",
];
/** The fields of Vertex AI's CountTokensRequest. */
const COUNT_FIELDS = [
  "model",
  "instances",
  "contents",
  "tools",
  "systemInstruction",
  "generationConfig",
];
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** The inner simulators' keys: only this simulator talks to them. */
const INNER_GEMINI_KEY = "vertex-inner-gemini";
const INNER_ANTHROPIC_KEY = "vertex-inner-anthropic";

/** A service account the simulator made: its JSON key file, and its public key. */
export interface ServiceAccount {
  email: string;
  keyId: string;
  /** The JSON key file's text, as Google's console downloads it. */
  json: string;
  publicKey: CryptoKey;
}

/** Makes a service account with a fresh RSA key pair whose key file names `tokenUri`. */
export async function makeServiceAccount(
  input: { name: string; project: string; tokenUri: string },
): Promise<ServiceAccount> {
  const pair = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const lines = pkcs8.toBase64().match(/.{1,64}/g)!.join("\n");
  const keyId = crypto.getRandomValues(new Uint8Array(20)).toHex();
  const email = `${input.name}@${input.project}.iam.gserviceaccount.com`;
  const json = JSON.stringify(
    {
      type: "service_account",
      project_id: input.project,
      private_key_id: keyId,
      private_key: `-----BEGIN PRIVATE KEY-----\n${lines}\n-----END PRIVATE KEY-----\n`,
      client_email: email,
      client_id: String(100000000000000000000n + BigInt(Math.floor(Math.random() * 1e9))),
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: input.tokenUri,
      auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${
        encodeURIComponent(email)
      }`,
      universe_domain: "googleapis.com",
    },
    null,
    2,
  );
  return { email, keyId, json, publicKey: pair.publicKey };
}

export interface VertexRecordedRequest {
  publisher: string;
  model: string;
  method: string;
  /** The bearer token sent, or null. */
  token: string | null;
  /** The `anthropic-beta` header, or null. */
  beta: string | null;
  body: Record<string, unknown>;
}

/** What Model Garden lists by default: Gemini and others of Google's, and Claude. */
export const VERTEX_LISTED_MODELS: Readonly<Record<string, readonly string[]>> = {
  google: [
    "gemini-2.5-flash",
    "gemini-2.5-pro",
    "imagen-4.0-generate-001",
    "gemini-2.0-flash-001",
    "text-embedding-005",
  ],
  anthropic: ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1"],
};

/** A model-list call as it arrived. */
export interface VertexListCall {
  publisher: string;
  pageSize: string | null;
  pageToken: string | null;
  token: string | null;
  /** Its HTTP status. */
  status: number;
}

export interface VertexUpstream extends AsyncDisposable {
  /** The origin: a vertex channel's base_url. */
  baseUrl: string;
  /** The token endpoint, as the key files name it. */
  tokenUri: string;
  project: string;
  location: string;
  /** The service account whose key the tests give the gateway. */
  account: ServiceAccount;
  /** Another account of the project (a second channel key). */
  otherAccount: ServiceAccount;
  /** Token endpoint calls, and of them those refused. */
  tokenCalls: { issued: number; refused: Array<{ error: string; description: string }> };
  /** Model method calls (refused ones too). */
  requests: VertexRecordedRequest[];
  /** Model list calls (refused ones too). */
  listCalls: VertexListCall[];
  /** `expires_in` of the tokens issued from now on (seconds). Default 3599, as Google's. */
  tokenLifetimeS: number;
  /** Moves the simulator's clock on: tokens and JWTs it has seen may expire. */
  advance(ms: number): void;
  /** The tokens issued so far (to `email` only, when given) are refused from now on. */
  revokeTokens(email?: string): void;
  /** Adds an account the token endpoint knows (e.g. one a test signs with another key). */
  addAccount(account: ServiceAccount): void;
  /** Faults answered to the next embedding `:predict` calls, one each, in order. */
  predictFaults: EmbeddingsFault[];
  /** The most embedding `:predict` calls it has had under way at once (each takes a moment). */
  predictsAtOnce: number;
  /** The simulators behind the model methods, for faults and the bodies they got. */
  gemini: GeminiUpstream;
  anthropic: AnthropicUpstream;
  close(): Promise<void>;
}

function googleError(status: number, message: string, statusName: string): Response {
  return Response.json({ error: { code: status, message, status: statusName } }, { status });
}

function oauthError(error: string, description: string): Response {
  return Response.json({ error, error_description: description }, { status: 400 });
}

function anthropicError(message: string): Response {
  return Response.json({
    type: "error",
    error: { type: "invalid_request_error", message },
  }, { status: 400 });
}

/** The characters of a request's text parts, whitespace left out, as Vertex bills them. */
function billableCharacters(request: Record<string, unknown>): number {
  const contents = [
    ...(Array.isArray(request.contents) ? request.contents : []),
    ...(request.systemInstruction ? [request.systemInstruction] : []),
  ] as Array<{ parts?: Array<{ text?: unknown }> }>;
  return contents.flatMap((content) => content.parts ?? [])
    .map((part) => typeof part.text === "string" ? part.text.replace(/\s/g, "").length : 0)
    .reduce((sum, length) => sum + length, 0);
}

function base64UrlBytes(text: string): Uint8Array {
  return Uint8Array.fromBase64(text, { alphabet: "base64url" });
}

function base64UrlJson(text: string): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(base64UrlBytes(text)));
}

const UNAUTHENTICATED =
  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie " +
  "or other valid authentication credential. See " +
  "https://developers.google.com/identity/sign-in/web/devconsole-project.";
const INVALID_TIME = "Invalid JWT: Token must be a short-lived token (60 minutes) and in a " +
  "reasonable timeframe. Check your iat and exp values in the JWT claim.";

/** Starts the simulator (and the two it serves models with) on free loopback ports. */
export async function startVertexUpstream(
  options: {
    project?: string;
    location?: string;
    cachedTokens?: number;
    /** The model ids each publisher lists (default VERTEX_LISTED_MODELS). */
    listedModels?: Record<string, readonly string[]>;
    /** The largest list page it gives, below the API's 100 (to test paging). */
    listedPageSize?: number;
    claudeCountLocations?: string[];
  } = {},
): Promise<VertexUpstream> {
  const claudeCountLocations = options.claudeCountLocations ?? CLAUDE_COUNT_LOCATIONS;
  let predictsUnderWay = 0;
  const project = options.project ?? VERTEX_PROJECT;
  const location = options.location ?? VERTEX_LOCATION;
  const gemini = startGeminiUpstream({
    keys: [INNER_GEMINI_KEY],
    cachedTokens: options.cachedTokens,
  });
  const anthropic = startAnthropicUpstream({
    keys: [INNER_ANTHROPIC_KEY],
    cachedTokens: options.cachedTokens,
  });
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const accounts = new Map<string, ServiceAccount>();
  /** Issued tokens: when they expire (simulator clock), and to whom. */
  const tokens = new Map<string, { expiresAt: number; email: string }>();

  async function tokenEndpoint(req: Request): Promise<Response> {
    const refuse = (error: string, description: string) => {
      state.tokenCalls.refused.push({ error, description });
      return oauthError(error, description);
    };
    if (!(req.headers.get("content-type") ?? "").includes("application/x-www-form-urlencoded")) {
      return refuse("invalid_request", "Invalid Content-Type");
    }
    const form = new URLSearchParams(await req.text());
    if (form.get("grant_type") !== JWT_BEARER) {
      return refuse("unsupported_grant_type", `Invalid grant_type: ${form.get("grant_type")}`);
    }
    const parts = (form.get("assertion") ?? "").split(".");
    if (parts.length !== 3) return refuse("invalid_request", "Invalid JWT: malformed");
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = base64UrlJson(parts[0]);
      claims = base64UrlJson(parts[1]);
    } catch {
      return refuse("invalid_request", "Invalid JWT: malformed");
    }
    if (header.alg !== "RS256") return refuse("invalid_grant", "Invalid JWT Signature.");
    const account = accounts.get(String(claims.iss));
    if (!account) return refuse("invalid_grant", "Invalid grant: account not found");
    if (header.kid !== undefined && header.kid !== account.keyId) {
      return refuse("invalid_grant", "Invalid JWT Signature.");
    }
    const signed = await crypto.subtle.verify(
      "RSASSA-PKCS1-v1_5",
      account.publicKey,
      base64UrlBytes(parts[2]) as BufferSource,
      new TextEncoder().encode(`${parts[0]}.${parts[1]}`),
    ).catch(() => false);
    if (!signed) return refuse("invalid_grant", "Invalid JWT Signature.");
    if (claims.aud !== state.tokenUri) {
      return refuse("invalid_grant", "Invalid JWT: Failed audience check.");
    }
    const nowS = now() / 1000;
    const iat = claims.iat as number;
    const exp = claims.exp as number;
    if (
      typeof iat !== "number" || typeof exp !== "number" || exp <= nowS || iat > nowS + 60 ||
      exp - iat > 3600
    ) {
      return refuse("invalid_grant", INVALID_TIME);
    }
    if (!String(claims.scope ?? "").split(" ").includes(SCOPE)) {
      return refuse("invalid_scope", "Invalid OAuth scope or ID token audience provided.");
    }
    const token = `ya29.sim-${crypto.randomUUID()}`;
    tokens.set(token, { expiresAt: now() + state.tokenLifetimeS * 1000, email: account.email });
    state.tokenCalls.issued++;
    return Response.json({
      access_token: token,
      expires_in: state.tokenLifetimeS,
      token_type: "Bearer",
    });
  }

  /** Why a bearer token is refused (Google's 401), or undefined when it is a live one. */
  function tokenRefusal(token: string | null): Response | undefined {
    if (!token) {
      return googleError(
        401,
        "Request is missing required authentication credential. Expected OAuth 2 access token, " +
          "login cookie or other valid authentication credential.",
        "UNAUTHENTICATED",
      );
    }
    const issued = tokens.get(token);
    if (issued === undefined || issued.expiresAt <= now()) {
      return googleError(401, UNAUTHENTICATED, "UNAUTHENTICATED");
    }
    return undefined;
  }

  function bearerOf(req: Request): string | null {
    const authorization = req.headers.get("authorization");
    return authorization?.startsWith("Bearer ") ? authorization.slice(7) : null;
  }

  /** `publishers.models.list`: one page of a publisher's models. */
  function publisherModels(req: Request, url: URL, publisher: string): Response {
    const call: VertexListCall = {
      publisher,
      pageSize: url.searchParams.get("pageSize"),
      pageToken: url.searchParams.get("pageToken"),
      token: bearerOf(req),
      status: 200,
    };
    state.listCalls.push(call);
    const answer = (response: Response) => {
      call.status = response.status;
      return response;
    };
    const refusal = tokenRefusal(call.token);
    if (refusal) return answer(refusal);
    const listed = (options.listedModels ?? VERTEX_LISTED_MODELS)[publisher];
    if (!listed) {
      return answer(
        googleError(404, `Publisher \`publishers/${publisher}\` not found.`, "NOT_FOUND"),
      );
    }
    const asked = Number(call.pageSize ?? "50");
    if (!Number.isInteger(asked) || asked < 0) {
      return answer(googleError(400, "Invalid page_size: must be >= 0.", "INVALID_ARGUMENT"));
    }
    let start = 0;
    if (call.pageToken) {
      let decoded = "";
      try {
        decoded = atob(call.pageToken);
      } catch {
        // not base64: refused below
      }
      const read = /^([a-z]+)\|(\d+)$/.exec(decoded);
      if (!read || read[1] !== publisher || Number(read[2]) > listed.length) {
        return answer(googleError(400, "Invalid page token.", "INVALID_ARGUMENT"));
      }
      start = Number(read[2]);
    }
    const size = Math.min(asked || 50, 100, options.listedPageSize ?? 100);
    const page = listed.slice(start, start + size);
    const end = start + page.length;
    return answer(Response.json({
      publisherModels: page.map((id) => ({
        name: `publishers/${publisher}/models/${id}`,
        versionId: "001",
        openSourceCategory: "PROPRIETARY",
        launchStage: "GA",
        publisherModelTemplate: `projects/{project}/locations/{location}/publishers/${publisher}` +
          `/models/${id}@001`,
      })),
      ...(end < listed.length ? { nextPageToken: btoa(`${publisher}|${end}`) } : {}),
    }));
  }

  async function modelMethod(req: Request, url: URL): Promise<Response> {
    const route =
      /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/([^/]+)\/models\/([^/:]+):([A-Za-z]+)$/
        .exec(url.pathname);
    if (req.method !== "POST" || !route) {
      return googleError(404, `The requested URL ${url.pathname} was not found.`, "NOT_FOUND");
    }
    const [, pathProject, pathLocation, publisher, rawModel, method] = route;
    const model = decodeURIComponent(rawModel);
    const token = bearerOf(req);
    let body: Record<string, unknown> = {};
    const text = await req.text();
    try {
      body = JSON.parse(text);
    } catch {
      // judged below, after the credential
    }
    state.requests.push({
      publisher,
      model,
      method,
      token,
      beta: req.headers.get("anthropic-beta"),
      body,
    });
    const refusal = tokenRefusal(token);
    if (refusal) return refusal;
    const resource = `projects/${pathProject}/locations/${pathLocation}/publishers/${publisher}` +
      `/models/${model}`;
    if (pathProject !== project) {
      return googleError(
        403,
        `Permission 'aiplatform.endpoints.predict' denied on resource ` +
          `'//aiplatform.googleapis.com/${resource}' (or it may not exist).`,
        "PERMISSION_DENIED",
      );
    }
    if (pathLocation !== location) {
      return googleError(404, `Publisher Model \`${resource}\` not found.`, "NOT_FOUND");
    }
    if (publisher === "google" && method === "predict" && isVertexEmbeddingModel(model)) {
      const fault = state.predictFaults.shift();
      if (fault) {
        const message = fault.message ?? "Internal error.";
        return googleError(fault.status, message, statusName(fault.status));
      }
      predictsUnderWay++;
      state.predictsAtOnce = Math.max(state.predictsAtOnce, predictsUnderWay);
      try {
        // A prediction takes a moment, so that calls sent together are seen together.
        await new Promise((resolve) => setTimeout(resolve, 2));
        return vertexPredict(model, text);
      } finally {
        predictsUnderWay--;
      }
    }
    if (publisher === "google" && isImagenModel(model)) {
      if (method !== "predict") {
        return googleError(
          400,
          `Method ${method} is not supported by ${model}.`,
          "INVALID_ARGUMENT",
        );
      }
      return imagenPredict(model, text);
    }
    if (publisher === "google" && method === "countTokens") {
      return await googleCount(req, { model, text });
    }
    if (publisher === "google") return await googleMethod(req, url, { model, method, text });
    if (publisher === "anthropic" && model === "count-tokens") {
      if (method !== "rawPredict") {
        return googleError(400, `Method ${method} is not supported.`, "INVALID_ARGUMENT");
      }
      if (!claudeCountLocations.includes(pathLocation)) {
        return googleError(404, `Publisher Model \`${resource}\` not found.`, "NOT_FOUND");
      }
      return await claudeCount(req, text);
    }
    if (publisher === "anthropic") return await anthropicMethod(req, { model, method, text });
    return googleError(404, `Publisher Model \`${resource}\` not found.`, "NOT_FOUND");
  }

  /** Google's models: the Gemini simulator answers, on its own path and key. */
  async function googleMethod(
    req: Request,
    url: URL,
    input: { model: string; method: string; text: string },
  ): Promise<Response> {
    if (!["generateContent", "streamGenerateContent", "countTokens"].includes(input.method)) {
      return googleError(400, `Method ${input.method} is not supported.`, "INVALID_ARGUMENT");
    }
    return await fetch(
      `${gemini.baseUrl}/v1beta/models/${encodeURIComponent(input.model)}:${input.method}` +
        url.search,
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": INNER_GEMINI_KEY },
        body: input.text,
        signal: req.signal,
      },
    );
  }

  /**
   * A Gemini model's count: Vertex's CountTokensRequest checked, counted by the Gemini simulator
   * as the whole request it is, answered in Vertex's shape.
   */
  async function googleCount(
    req: Request,
    input: { model: string; text: string },
  ): Promise<Response> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(input.text);
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw 0;
    } catch {
      return googleError(400, "Invalid JSON payload received.", "INVALID_ARGUMENT");
    }
    for (const field of Object.keys(body)) {
      if (!COUNT_FIELDS.includes(field)) {
        return googleError(
          400,
          `Invalid JSON payload received. Unknown name "${field}": Cannot find field.`,
          "INVALID_ARGUMENT",
        );
      }
    }
    const { model: _model, instances: _instances, ...request } = body;
    const answer = await fetch(
      `${gemini.baseUrl}/v1beta/models/${encodeURIComponent(input.model)}:countTokens`,
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": INNER_GEMINI_KEY },
        body: JSON.stringify({
          generateContentRequest: { model: `models/${input.model}`, ...request },
        }),
        signal: req.signal,
      },
    );
    if (!answer.ok) return answer;
    const { totalTokens, promptTokensDetails } = await answer.json();
    return Response.json({
      totalTokens,
      totalBillableCharacters: billableCharacters(request),
      promptTokensDetails,
    });
  }

  /** Claude's count: the count_tokens body as Vertex takes it, counted by the Anthropic simulator. */
  async function claudeCount(req: Request, text: string): Promise<Response> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text);
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw 0;
    } catch {
      return anthropicError("The request body is not valid JSON.");
    }
    const { anthropic_version: version, ...rest } = body;
    if (version !== undefined && version !== VERTEX_ANTHROPIC_VERSION) {
      return anthropicError(`anthropic_version: Input should be '${VERTEX_ANTHROPIC_VERSION}'`);
    }
    if (typeof rest.model !== "string") return anthropicError("model: Field required");
    const beta = req.headers.get("anthropic-beta");
    return await fetch(`${anthropic.baseUrl}/v1/messages/count_tokens`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": INNER_ANTHROPIC_KEY,
        "anthropic-version": "2023-06-01",
        ...(beta ? { "anthropic-beta": beta } : {}),
      },
      body: JSON.stringify(rest),
      signal: req.signal,
    });
  }

  /** Anthropic's models: the body checked as Vertex checks it, then the Anthropic simulator. */
  async function anthropicMethod(
    req: Request,
    input: { model: string; method: string; text: string },
  ): Promise<Response> {
    const streaming = input.method === "streamRawPredict";
    if (!streaming && input.method !== "rawPredict") {
      return googleError(400, `Method ${input.method} is not supported.`, "INVALID_ARGUMENT");
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(input.text);
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw 0;
    } catch {
      return anthropicError("The request body is not valid JSON.");
    }
    const { anthropic_version: version, ...rest } = body;
    if (version !== VERTEX_ANTHROPIC_VERSION) {
      return anthropicError(
        version === undefined
          ? "anthropic_version: Field required"
          : `anthropic_version: Input should be '${VERTEX_ANTHROPIC_VERSION}'`,
      );
    }
    if ("model" in rest) return anthropicError("model: Extra inputs are not permitted");
    if ((rest.stream === true) !== streaming) {
      return anthropicError(
        streaming
          ? 'streamRawPredict needs "stream": true in the body'
          : '"stream": true needs streamRawPredict',
      );
    }
    const beta = req.headers.get("anthropic-beta");
    return await fetch(`${anthropic.baseUrl}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": INNER_ANTHROPIC_KEY,
        "anthropic-version": "2023-06-01",
        ...(beta ? { "anthropic-beta": beta } : {}),
      },
      body: JSON.stringify({ model: input.model, ...rest }),
      signal: req.signal,
    });
  }

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    onError: simulatorOnError,
  }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/token") {
      return req.method === "POST"
        ? tokenEndpoint(req)
        : googleError(405, "Method Not Allowed", "INVALID_ARGUMENT");
    }
    const list = /^\/v1beta1\/publishers\/([^/]+)\/models$/.exec(url.pathname);
    if (list) {
      return req.method === "GET"
        ? publisherModels(req, url, list[1])
        : googleError(405, "Method Not Allowed", "INVALID_ARGUMENT");
    }
    return modelMethod(req, url);
  });
  const baseUrl = `http://127.0.0.1:${server.addr.port}`;
  const tokenUri = `${baseUrl}/token`;
  const account = await makeServiceAccount({ name: "gateway", project, tokenUri });
  const otherAccount = await makeServiceAccount({ name: "gateway-two", project, tokenUri });
  accounts.set(account.email, account);
  accounts.set(otherAccount.email, otherAccount);

  const close = async () => {
    await server.shutdown();
    await gemini.close();
    await anthropic.close();
  };
  const state: VertexUpstream = {
    baseUrl,
    tokenUri,
    project,
    location,
    account,
    otherAccount,
    tokenCalls: { issued: 0, refused: [] },
    requests: [],
    listCalls: [],
    predictFaults: [],
    predictsAtOnce: 0,
    tokenLifetimeS: 3599,
    advance(ms) {
      offsetMs += ms;
    },
    revokeTokens(email) {
      for (const [token, issued] of tokens) {
        if (email === undefined || issued.email === email) tokens.delete(token);
      }
    },
    addAccount(added) {
      accounts.set(added.email, added);
    },
    gemini,
    anthropic,
    close,
    [Symbol.asyncDispose]: close,
  };
  return state;
}
