/**
 * A simulated Azure OpenAI resource, and the Entra ID token endpoint of its tenant. It answers
 * what the real service answers, with its quirks:
 * - the deployment shape (`/openai/deployments/{d}/…?api-version=…`, and
 *   `/openai/responses?api-version=…`) refuses a missing api-version (404 "Resource not found",
 *   as Azure does) and one it does not know (400 "API version not supported"); the v1 shape
 *   (`/openai/v1/…`) takes none, or `preview`/`latest`;
 * - `api-key` or an Entra ID bearer token (one it issued and not expired, or one of
 *   `bearerTokens`), else 401;
 * - an unknown deployment is 404 DeploymentNotFound;
 * - chat answers carry `prompt_filter_results` and per-choice `content_filter_results`; a stream
 *   starts with a chunk with empty `choices` and an empty `model` carrying the prompt's filter
 *   results, and each choice chunk carries its filter results; a prompt containing
 *   `FILTERED_OUTPUT` ends with `finish_reason: "content_filter"`, one containing
 *   `FILTERED_PROMPT` is refused (400 content_filter).
 * The work itself is done by the OpenAI simulators (chat, responses, embeddings, images, audio
 * transcriptions and translations, speech), which the resource calls with the deployment's model,
 * as Azure runs a deployment on a model. There is no moderations endpoint (404), as on Azure.
 */

import { startOpenAIChatUpstream } from "./openai_chat.ts";
import { startOpenAIResponsesUpstream } from "./openai_responses.ts";
import { startOpenAIEmbeddingsUpstream } from "./openai_embeddings.ts";
import { startOpenAIImagesUpstream } from "./openai_images.ts";
import { startOpenAIAudioUpstream } from "./openai_audio.ts";
import { startOpenAISpeechUpstream } from "./openai_speech.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export interface AzureRecordedRequest {
  /** Path and query, as asked. */
  url: string;
  /** "api-key", "bearer" or "none". */
  auth: string;
  /** The deployment asked for (the path's, or the body's `model` on responses and v1). */
  deployment?: string;
  body?: Json;
}

export interface AzureOpenAIUpstreamOptions {
  /** Deployments by name, each the model it runs. */
  deployments?: Record<string, string>;
  /** Accepted `api-key` values. */
  apiKeys?: string[];
  /** Bearer tokens accepted as they are (tokens the caller got elsewhere). */
  bearerTokens?: string[];
  /** The Entra ID app whose client secrets get tokens. */
  entra?: { tenant: string; clientId: string; secrets: string[]; expiresInSeconds?: number };
}

export interface AzureOpenAIUpstream extends AsyncDisposable {
  /** The resource's endpoint, an azure-openai channel's base_url. */
  endpoint: string;
  /** Where Entra ID lives for this resource (a channel's entra_authority). */
  authority: string;
  requests: AzureRecordedRequest[];
  /** Token requests: the client id and whether the secret was right. */
  tokenRequests: Array<{ clientId: string; granted: boolean }>;
  /** Tokens issued, and when each expires (ms). */
  issued: Map<string, number>;
  options: AzureOpenAIUpstreamOptions;
  close(): Promise<void>;
}

/** API versions of the deployment shape the simulator knows. */
export const AZURE_API_VERSIONS = ["2024-10-21", "2025-04-01-preview"];

const SAFE = { filtered: false, severity: "safe" };
/** Azure's per-choice output filter results. */
export const CONTENT_FILTER_RESULTS = {
  hate: SAFE,
  self_harm: SAFE,
  sexual: SAFE,
  violence: SAFE,
};
const FILTERED_RESULTS = {
  ...CONTENT_FILTER_RESULTS,
  violence: { filtered: true, severity: "high" },
};
const PROMPT_FILTER_RESULTS = [{
  prompt_index: 0,
  content_filter_results: {
    ...CONTENT_FILTER_RESULTS,
    jailbreak: { filtered: false, detected: false },
  },
}];

function azureError(status: number, code: string, message: string, extra: Json = {}) {
  return Response.json({ error: { code, message, ...extra } }, { status });
}

const notFound = () => azureError(404, "404", "Resource not found");

/** The calls whose body is a multipart form. */
const MULTIPART_PATHS = new Set(["/images/edits", "/audio/transcriptions", "/audio/translations"]);

/** Starts the resource and its token endpoint on a free loopback port. */
export function startAzureOpenAIUpstream(
  options: AzureOpenAIUpstreamOptions = {},
): AzureOpenAIUpstream {
  const deployments = options.deployments ?? {
    "chat-prod": "gpt-4o-mini",
    "resp-prod": "gpt-5-mini",
    "embed-prod": "text-embedding-3-small",
    "image-prod": "gpt-image-1",
    "whisper-prod": "whisper-1",
    "transcribe-prod": "gpt-4o-transcribe",
    "tts-prod": "gpt-4o-mini-tts",
  };
  const chat = startOpenAIChatUpstream();
  const responses = startOpenAIResponsesUpstream();
  const embeddings = startOpenAIEmbeddingsUpstream();
  const images = startOpenAIImagesUpstream();
  const audio = startOpenAIAudioUpstream();
  const speech = startOpenAISpeechUpstream();
  const state: AzureOpenAIUpstream = {
    endpoint: "",
    authority: "",
    requests: [],
    tokenRequests: [],
    issued: new Map(),
    options,
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };

  async function token(req: Request, tenant: string): Promise<Response> {
    const form = new URLSearchParams(await req.text());
    const entra = options.entra;
    const clientId = form.get("client_id") ?? "";
    const invalid = (error: string, description: string, status = 400) =>
      Response.json({ error, error_description: description, error_codes: [7000215] }, {
        status,
      });
    if (!entra || tenant !== entra.tenant) {
      return invalid("invalid_request", `AADSTS90002: Tenant '${tenant}' not found.`);
    }
    if (form.get("grant_type") !== "client_credentials") {
      return invalid("unsupported_grant_type", "AADSTS70003: unsupported grant type");
    }
    if (form.get("scope") !== "https://cognitiveservices.azure.com/.default") {
      return invalid("invalid_scope", "AADSTS70011: The provided scope is not valid.");
    }
    const granted = clientId === entra.clientId &&
      entra.secrets.includes(form.get("client_secret") ?? "");
    state.tokenRequests.push({ clientId, granted });
    if (!granted) {
      return invalid(
        "invalid_client",
        "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the " +
          "request is the client secret value, not the client secret ID.",
        401,
      );
    }
    const expiresIn = entra.expiresInSeconds ?? 3599;
    const accessToken = `eyJ0eXAiOiJKV1Qi.sim${crypto.randomUUID().replaceAll("-", "")}.sig`;
    state.issued.set(accessToken, Date.now() + expiresIn * 1000);
    return Response.json({
      token_type: "Bearer",
      expires_in: expiresIn,
      ext_expires_in: expiresIn,
      access_token: accessToken,
    });
  }

  /** "api-key", "bearer", or a 401 answer. */
  function authOf(req: Request): string | Response {
    const apiKey = req.headers.get("api-key");
    if (apiKey !== null) {
      if ((options.apiKeys ?? []).includes(apiKey)) return "api-key";
      return azureError(
        401,
        "401",
        "Access denied due to invalid subscription key or wrong API endpoint. Make sure to " +
          "provide a valid key for an active subscription and use a correct regional API " +
          "endpoint for your resource.",
      );
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
    const expiry = bearer === undefined ? undefined : state.issued.get(bearer);
    if (
      bearer !== undefined &&
      ((options.bearerTokens ?? []).includes(bearer) || (expiry ?? 0) > Date.now())
    ) {
      return "bearer";
    }
    return azureError(
      401,
      "401",
      "Unauthorized. Access token is missing, invalid, audience is incorrect " +
        "(https://cognitiveservices.azure.com), or have expired.",
    );
  }

  /** Where an OpenAI path's work is done, by the inner simulators. */
  function innerUrl(path: string): string | undefined {
    if (path === "/chat/completions") return `${chat.baseUrl}/chat/completions`;
    if (path === "/responses") return `${responses.baseUrl}/responses`;
    if (path === "/embeddings") return `${embeddings.baseUrl}/embeddings`;
    if (path === "/images/generations") return `${images.baseUrl}/images/generations`;
    if (path === "/images/edits") return `${images.baseUrl}/images/edits`;
    if (path === "/audio/transcriptions" || path === "/audio/translations") {
      return `${audio.baseUrl}${path}`;
    }
    if (path === "/audio/speech") return `${speech.baseUrl}/audio/speech`;
    return undefined;
  }

  async function serve(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (tokenPath && req.method === "POST") return await token(req, tokenPath[1]);

    const record: AzureRecordedRequest = { url: url.pathname + url.search, auth: "none" };
    state.requests.push(record);
    const version = url.searchParams.get("api-version");
    const v1 = /^\/openai\/v1(\/.+)$/.exec(url.pathname);
    const inDeployment = /^\/openai\/deployments\/([^/]+)(\/.+)$/.exec(url.pathname);
    let path: string;
    let pathDeployment: string | undefined;
    if (v1) {
      if (version !== null && version !== "preview" && version !== "latest") {
        return azureError(400, "BadRequest", "API version not supported");
      }
      path = v1[1];
    } else if (inDeployment || url.pathname === "/openai/responses") {
      if (version === null) return notFound();
      if (!AZURE_API_VERSIONS.includes(version)) {
        return azureError(400, "BadRequest", "API version not supported");
      }
      path = inDeployment ? inDeployment[2] : "/responses";
      pathDeployment = inDeployment ? decodeURIComponent(inDeployment[1]) : undefined;
    } else {
      return notFound();
    }
    const inner = innerUrl(path);
    if (!inner || req.method !== "POST") return notFound();
    const auth = authOf(req);
    if (auth instanceof Response) return auth;
    record.auth = auth;
    if (MULTIPART_PATHS.has(path)) return await multipart(req, record, inner, pathDeployment);
    let body: Json;
    try {
      body = await req.json();
    } catch {
      return azureError(400, "BadRequest", "Could not parse the JSON body.");
    }
    record.body = body;
    const deployment = pathDeployment ?? body.model;
    record.deployment = deployment;
    const model = deployments[deployment];
    if (model === undefined) {
      return azureError(
        404,
        "DeploymentNotFound",
        "The API deployment for this resource does not exist. If you created the deployment " +
          "within the last 5 minutes, please wait a moment and try again.",
      );
    }
    const prompt = JSON.stringify(body.messages ?? body.input ?? body.prompt ?? "");
    if (prompt.includes("FILTERED_PROMPT")) {
      return azureError(
        400,
        "content_filter",
        "The response was filtered due to the prompt triggering Azure OpenAI's content " +
          "management policy. Please modify your prompt and retry.",
        {
          param: "prompt",
          type: null,
          status: 400,
          innererror: {
            code: "ResponsibleAIPolicyViolation",
            content_filter_result: FILTERED_RESULTS,
          },
        },
      );
    }
    const answer = await fetch(inner, {
      method: "POST",
      headers: {
        authorization: "Bearer sk-upstream-test",
        "content-type": "application/json",
      },
      body: JSON.stringify({ ...body, model }),
    });
    if (path !== "/chat/completions" || !answer.ok) return answer;
    const filtered = prompt.includes("FILTERED_OUTPUT");
    if (!body.stream) return Response.json(azureChat(await answer.json(), filtered));
    return new Response(azureChatStream(answer.body!, filtered), {
      headers: { "content-type": "text/event-stream" },
    });
  }

  /** An image edit or an audio transcription: multipart, the deployment's model set in the form. */
  async function multipart(
    req: Request,
    record: AzureRecordedRequest,
    inner: string,
    pathDeployment: string | undefined,
  ): Promise<Response> {
    let form: FormData;
    try {
      form = await req.formData();
    } catch {
      return azureError(400, "BadRequest", "Could not parse the multipart body.");
    }
    record.body = Object.fromEntries(
      [...form].filter(([, value]) => typeof value === "string"),
    );
    const deployment = pathDeployment ?? String(form.get("model"));
    record.deployment = deployment;
    const model = deployments[deployment];
    if (model === undefined) {
      return azureError(
        404,
        "DeploymentNotFound",
        "The API deployment for this resource does not exist.",
      );
    }
    form.set("model", model);
    return await fetch(inner, {
      method: "POST",
      headers: { authorization: "Bearer sk-upstream-test" },
      body: form,
    });
  }

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, serve);
  state.endpoint = `http://127.0.0.1:${server.addr.port}`;
  state.authority = state.endpoint;
  state.close = async () => {
    await server.shutdown();
    await Promise.all(
      [chat, responses, embeddings, images, audio, speech].map((inner) => inner.close()),
    );
  };
  return state;
}

/** An OpenAI chat answer as Azure writes it. */
function azureChat(answer: Json, filtered: boolean): Json {
  return {
    ...answer,
    prompt_filter_results: PROMPT_FILTER_RESULTS,
    choices: answer.choices.map((choice: Json) => ({
      ...choice,
      ...(filtered ? { finish_reason: "content_filter" } : {}),
      content_filter_results: filtered ? FILTERED_RESULTS : CONTENT_FILTER_RESULTS,
    })),
  };
}

/**
 * An OpenAI chat stream as Azure writes it: a first chunk with no choices carrying the prompt's
 * filter results, each choice chunk with its filter results; a filtered output ends with
 * `finish_reason: "content_filter"`.
 */
function azureChatStream(body: ReadableStream<Uint8Array>, filtered: boolean) {
  const encoder = new TextEncoder();
  let buffer = "";
  let first = true;
  const write = (controller: TransformStreamDefaultController<Uint8Array>, data: string) =>
    controller.enqueue(encoder.encode(`data: ${data}\n\n`));
  const chunk = (data: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (first) {
      first = false;
      write(
        controller,
        JSON.stringify({
          choices: [],
          created: 0,
          id: "",
          model: "",
          object: "",
          prompt_filter_results: PROMPT_FILTER_RESULTS,
        }),
      );
    }
    if (data === "[DONE]") return write(controller, data);
    const parsed = JSON.parse(data);
    parsed.choices = (parsed.choices ?? []).map((choice: Json) => ({
      ...choice,
      ...(filtered && choice.finish_reason ? { finish_reason: "content_filter" } : {}),
      content_filter_results: filtered && choice.finish_reason
        ? FILTERED_RESULTS
        : CONTENT_FILTER_RESULTS,
    }));
    write(controller, JSON.stringify(parsed));
  };
  return body.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TransformStream<string, Uint8Array>({
      transform(text, controller) {
        buffer += text;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split("\n").filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trim()).join("\n");
          if (data) chunk(data, controller);
        }
      },
    }),
  );
}
