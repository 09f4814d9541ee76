/**
 * A simulated Amazon Bedrock runtime (`bedrock-runtime.{region}.amazonaws.com`), strict as the
 * real one:
 * - every call is authorised: SigV4 recomputed from what arrived with the same secret
 *   (sigv4_verify.ts; a bad, unsigned or expired signature, an unknown access key, a wrong
 *   session token, or a signature for another region or service: 403 with AWS's
 *   `{"message"}` and `x-amzn-ErrorType`), or a Bedrock API key as a bearer token;
 * - `POST /model/{modelId}/invoke` and `/invoke-with-response-stream` take an Anthropic
 *   messages body without `model` or `stream` and with `anthropic_version:
 *   "bedrock-2023-05-31"` (else 400 ValidationException); a model it does not serve is 400
 *   "The provided model identifier is invalid.", as Bedrock answers;
 * - a stream is AWS's binary event stream: a `chunk` event per Anthropic event, its JSON in
 *   base64 `bytes`, the last carrying `amazon-bedrock-invocationMetrics`; an error mid-stream is
 *   an exception frame;
 * - `/converse` and `/converse-stream` take a Converse body (unknown fields, empty or
 *   many-member content blocks, bad image formats refused; Claude's `thinking` in
 *   `additionalModelRequestFields` refused for other models) and answer Converse's shape; the
 *   stream is messageStart, contentBlockStart (tool uses), contentBlockDelta, contentBlockStop,
 *   messageStop and metadata events (bedrock_converse.ts);
 * - the control plane's lists, signed and refused alike (one server plays both hosts, as a proxy
 *   would): `GET /foundation-models` (ListFoundationModels, one page, `byProvider`,
 *   `byOutputModality`, `byInferenceType` and `byCustomizationType` checked against their values
 *   and applied; `{modelSummaries: [{modelArn, modelId, modelName, providerName,
 *   inputModalities, outputModalities, responseStreamingSupported, customizationsSupported,
 *   inferenceTypesSupported, modelLifecycle}]}`) and `GET /inference-profiles`
 *   (ListInferenceProfiles: `maxResults` 1–1000, `type` SYSTEM_DEFINED or APPLICATION, a
 *   `nextToken` it issued, else 400 ValidationException; `{inferenceProfileSummaries:
 *   [{inferenceProfileArn, inferenceProfileId, inferenceProfileName, models, status, type}],
 *   nextToken}`);
 * - `/count-tokens` (CountTokens) takes `{"input": {"converse": {messages, system, toolConfig,
 *   additionalModelRequestFields}}}` or `{"input": {"invokeModel": {"body": base64}}}` (one of
 *   the two; unknown fields refused; the InvokeModel body checked as `/invoke` checks it) and
 *   answers `{"inputTokens"}`, the input tokens the same call would report; only foundation
 *   models that count (`countingModels`: by default Anthropic's, not inference profiles or
 *   ARNs) are counted, others are 400 "The provided model doesn't support counting tokens.".
 * - the embedding models (Titan Text Embeddings V2, Cohere Embed v3 and v4) on `/invoke`, their
 *   bodies checked as strictly (bedrock_embeddings.ts);
 * - the image models (Nova Canvas, Titan Image Generator v2, SD3.5 Large) on `/invoke`, their bodies, sizes and
 *   counts checked as strictly, answered with real PNGs of the asked size (bedrock_images.ts);
 * The model's work is done by the Anthropic simulator, which it calls with the body completed,
 * as Bedrock runs Claude.
 */

import { createParser } from "eventsource-parser";
import { encodeAwsEventMessage } from "../../core/upstream/aws_event_stream.ts";
import {
  type AnthropicFault,
  type AnthropicUpstreamOptions,
  startAnthropicUpstream,
} from "./anthropic.ts";
import { sigV4Refusal } from "./sigv4_verify.ts";
import { simulatorOnError } from "./text_script.ts";
import { anthropicBodyOfConverse, converseAnswerOf, converseEventsOf } from "./bedrock_converse.ts";
import { BEDROCK_EMBEDDING_MODELS, bedrockEmbeddingAnswer } from "./bedrock_embeddings.ts";
import { BEDROCK_IMAGE_MODELS, bedrockImageAnswer } from "./bedrock_images.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export interface BedrockRecordedRequest {
  /** The path as received (the model id still encoded). */
  path: string;
  /** The model id, decoded. */
  modelId: string;
  /** "sigv4", "api-key" or "none". */
  auth: string;
  headers: Record<string, string>;
  body?: Json;
  /** Whether it was refused before reaching the model, and why (AWS's error type). */
  refused?: string;
}

/** A foundation model as ListFoundationModels describes it (the fields the tests vary). */
export interface ListedFoundationModel {
  modelId: string;
  modelName: string;
  providerName: string;
  outputModalities: string[];
  inferenceTypesSupported: string[];
}

/** An inference profile as ListInferenceProfiles describes it (the fields the tests vary). */
export interface ListedInferenceProfile {
  inferenceProfileId: string;
  inferenceProfileName: string;
  type: "SYSTEM_DEFINED" | "APPLICATION";
}

/** What the control plane lists by default: served models, one only by profile, an embedder, an image model. */
export const BEDROCK_FOUNDATION_MODELS: readonly ListedFoundationModel[] = [
  {
    modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0",
    modelName: "Claude 3.5 Sonnet",
    providerName: "Anthropic",
    outputModalities: ["TEXT"],
    inferenceTypesSupported: ["ON_DEMAND"],
  },
  {
    modelId: "anthropic.claude-sonnet-4-20250514-v1:0",
    modelName: "Claude Sonnet 4",
    providerName: "Anthropic",
    outputModalities: ["TEXT"],
    inferenceTypesSupported: ["INFERENCE_PROFILE"],
  },
  {
    modelId: "amazon.nova-pro-v1:0",
    modelName: "Nova Pro",
    providerName: "Amazon",
    outputModalities: ["TEXT"],
    inferenceTypesSupported: ["ON_DEMAND", "INFERENCE_PROFILE"],
  },
  {
    modelId: "amazon.titan-embed-text-v2:0",
    modelName: "Titan Text Embeddings V2",
    providerName: "Amazon",
    outputModalities: ["EMBEDDING"],
    inferenceTypesSupported: ["ON_DEMAND"],
  },
  {
    modelId: "amazon.nova-canvas-v1:0",
    modelName: "Nova Canvas",
    providerName: "Amazon",
    outputModalities: ["IMAGE"],
    inferenceTypesSupported: ["ON_DEMAND"],
  },
];

export const BEDROCK_INFERENCE_PROFILES: readonly ListedInferenceProfile[] = [
  {
    inferenceProfileId: "us.anthropic.claude-sonnet-4-20250514-v1:0",
    inferenceProfileName: "US Claude Sonnet 4",
    type: "SYSTEM_DEFINED",
  },
  {
    inferenceProfileId: "us.amazon.nova-pro-v1:0",
    inferenceProfileName: "US Nova Pro",
    type: "SYSTEM_DEFINED",
  },
  {
    inferenceProfileId: "k3x9q2lmw7ab",
    inferenceProfileName: "team-a-claude",
    type: "APPLICATION",
  },
];

export interface BedrockUpstreamOptions {
  region?: string;
  /** Secret access keys by access key id. */
  accessKeys?: Record<string, string>;
  /** Session tokens required of access key ids (temporary credentials). */
  sessionTokens?: Record<string, string>;
  /** Bedrock API keys accepted as bearer tokens. */
  apiKeys?: string[];
  /** The model ids it serves (Anthropic models, embedders; inference profiles and ARNs too). */
  models?: string[];
  /** The model ids CountTokens counts. Default: the served ids that start `anthropic.`. */
  countingModels?: string[];
  /** The Anthropic simulator's options (cached tokens, tools called…). */
  anthropic?: AnthropicUpstreamOptions;
  /** The simulator's clock for signature expiry. */
  now?: () => Date;
  /** What ListFoundationModels answers (default BEDROCK_FOUNDATION_MODELS). */
  foundationModels?: readonly ListedFoundationModel[];
  /** What ListInferenceProfiles lists (default BEDROCK_INFERENCE_PROFILES). */
  inferenceProfiles?: readonly ListedInferenceProfile[];
  /** The largest page of profiles it gives, below the asked `maxResults` (to test paging). */
  profilesPageSize?: number;
}

export interface BedrockUpstream extends AsyncDisposable {
  /** The runtime endpoint, a bedrock channel's base_url. */
  endpoint: string;
  region: string;
  requests: BedrockRecordedRequest[];
  /** Faults of the model behind it (statuses, stream breaks). */
  faults: AnthropicFault[];
  options: BedrockUpstreamOptions;
  close(): Promise<void>;
}

export const BEDROCK_TEST_ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE";
export const BEDROCK_TEST_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
export const BEDROCK_TEST_MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0";
/** A model the simulator serves through Converse only (not Anthropic's). */
export const BEDROCK_TEST_NOVA = "amazon.nova-pro-v1:0";

/** AWS's error answer: `{"message"}` with the error's name in `x-amzn-ErrorType`. */
function awsError(status: number, type: string, message: string): Response {
  return Response.json({ message }, {
    status,
    headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  });
}

const encoder = new TextEncoder();

function base64(text: string): string {
  let binary = "";
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function chunkFrame(data: string): Uint8Array {
  return encodeAwsEventMessage({
    headers: {
      ":event-type": "chunk",
      ":content-type": "application/json",
      ":message-type": "event",
    },
    body: encoder.encode(JSON.stringify({ bytes: base64(data), p: "abcdefghij" })),
  });
}

/** The exception Bedrock streams for an Anthropic stream error of `type`. */
function exceptionName(type: string): string {
  return type === "overloaded_error" ? "serviceUnavailableException" : "modelStreamErrorException";
}

function exceptionFrame(type: string, message: string): Uint8Array {
  return encodeAwsEventMessage({
    headers: {
      ":exception-type": type,
      ":content-type": "application/json",
      ":message-type": "exception",
    },
    body: encoder.encode(JSON.stringify({ message })),
  });
}

function converseFrame(eventType: string, payload: Json): Uint8Array {
  return encodeAwsEventMessage({
    headers: {
      ":event-type": eventType,
      ":content-type": "application/json",
      ":message-type": "event",
    },
    body: encoder.encode(JSON.stringify({ ...payload, p: "abcdef" })),
  });
}

/** The Anthropic simulator's SSE answer as ConverseStream's events. */
function asConverseStream(answer: Response, started: number): Response {
  const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
  const state: { usage: Json; stopReason?: string; started: number } = { usage: {}, started };
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const parser = createParser({
        onEvent: ({ data }) => {
          const event = JSON.parse(data);
          if (event.type === "error") {
            controller.enqueue(
              exceptionFrame(exceptionName(event.error.type), event.error.message),
            );
            return;
          }
          for (const [name, payload] of converseEventsOf(event, state)) {
            const frame = converseFrame(name, payload);
            const cut = Math.max(1, frame.length >> 1);
            controller.enqueue(frame.slice(0, cut));
            controller.enqueue(frame.slice(cut));
          }
        },
      });
      try {
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          parser.feed(next.value);
        }
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: () => reader.cancel(),
  });
  return new Response(stream, {
    headers: { "content-type": "application/vnd.amazon.eventstream" },
  });
}

/** The Anthropic simulator's SSE answer as Bedrock's event stream. */
function asEventStream(answer: Response, started: number): Response {
  const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
  let inputTokens = 0;
  let outputTokens = 0;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const parser = createParser({
        onEvent: ({ data }) => {
          const event = JSON.parse(data);
          if (event.type === "error") {
            controller.enqueue(
              exceptionFrame(exceptionName(event.error.type), event.error.message),
            );
            return;
          }
          if (event.type === "message_start") {
            const usage = event.message.usage;
            inputTokens = usage.input_tokens + usage.cache_read_input_tokens +
              usage.cache_creation_input_tokens;
          }
          if (event.type === "message_delta") outputTokens = event.usage?.output_tokens ?? 0;
          if (event.type === "message_stop") {
            event["amazon-bedrock-invocationMetrics"] = {
              inputTokenCount: inputTokens,
              outputTokenCount: outputTokens,
              invocationLatency: Date.now() - started,
              firstByteLatency: 1,
            };
          }
          const frame = chunkFrame(JSON.stringify(event));
          // Cut in two, as TCP may deliver it.
          const cut = Math.max(1, frame.length >> 1);
          controller.enqueue(frame.slice(0, cut));
          controller.enqueue(frame.slice(cut));
        },
      });
      try {
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          parser.feed(next.value);
        }
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: () => reader.cancel(),
  });
  return new Response(stream, {
    headers: {
      "content-type": "application/vnd.amazon.eventstream",
      "x-amzn-bedrock-content-type": "application/json",
    },
  });
}

const ROUTE =
  /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)$/;

/** The fields of CountTokens' `converse` input. */
const CONVERSE_COUNT_FIELDS = ["messages", "system", "toolConfig", "additionalModelRequestFields"];

/** Fields of an Anthropic body its count leaves out (a count asks no answer). */
const NOT_COUNTED = ["max_tokens", "stream", "temperature", "top_p", "top_k", "stop_sequences"];

/** Why InvokeModel refuses `body` as an Anthropic body, or undefined. */
function invokeBodyRefusal(body: Json): string | undefined {
  for (const field of ["model", "stream"]) {
    if (field in body) {
      return `Malformed input request: #: extraneous key [${field}] is not permitted, please reformat your input and try again.`;
    }
  }
  if (body.anthropic_version !== "bedrock-2023-05-31") {
    return "Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.";
  }
  return undefined;
}

/**
 * The Anthropic count_tokens body of a CountTokens body for `modelId`, with the betas it asks,
 * or the ValidationException's message.
 */
function countedBody(
  body: Json,
  modelId: string,
): { body: Json; betas?: string[] } | string {
  const extra = Object.keys(body).find((field) => field !== "input");
  if (extra) return `Malformed input request: extraneous key [${extra}] is not permitted`;
  const input = body.input ?? {};
  const members = Object.keys(input);
  if (members.length !== 1 || !["converse", "invokeModel"].includes(members[0])) {
    return "input: exactly one of converse and invokeModel must be set";
  }
  let asked: Json;
  let betas: string[] | undefined;
  if (members[0] === "converse") {
    const unknown = Object.keys(input.converse ?? {}).find((field) =>
      !CONVERSE_COUNT_FIELDS.includes(field)
    );
    if (unknown) return `Malformed input request: extraneous key [${unknown}] is not permitted`;
    asked = anthropicBodyOfConverse(input.converse ?? {}, { modelId, anthropic: true });
    if (typeof asked === "string") return asked;
  } else {
    const unknown = Object.keys(input.invokeModel ?? {}).find((field) => field !== "body");
    if (unknown) return `Malformed input request: extraneous key [${unknown}] is not permitted`;
    let invoked: Json;
    try {
      invoked = JSON.parse(
        new TextDecoder().decode(Uint8Array.fromBase64(input.invokeModel?.body ?? "")),
      );
    } catch {
      return "Malformed input request, please reformat your input and try again.";
    }
    const refusal = invokeBodyRefusal(invoked);
    if (refusal) return refusal;
    const { anthropic_version: _version, anthropic_beta: beta, ...rest } = invoked;
    asked = { ...rest, model: modelId };
    betas = Array.isArray(beta) ? beta : undefined;
  }
  for (const field of NOT_COUNTED) delete asked[field];
  return { body: asked, betas };
}

/** The model's refusal or failure as Bedrock's error. */
async function modelError(answer: Response): Promise<Response> {
  const error = await answer.json().catch(() => ({}));
  const message = error?.error?.message ?? "Internal server error";
  if (answer.status === 400) return awsError(400, "ValidationException", message);
  if (answer.status === 429) return awsError(429, "ThrottlingException", message);
  if (answer.status === 529 || answer.status === 503) {
    return awsError(503, "ServiceUnavailableException", message);
  }
  return awsError(answer.status >= 500 ? 500 : answer.status, "InternalServerException", message);
}

const FILTERS: Record<string, string[]> = {
  byOutputModality: ["TEXT", "IMAGE", "EMBEDDING"],
  byInferenceType: ["ON_DEMAND", "PROVISIONED"],
  byCustomizationType: ["FINE_TUNING", "CONTINUED_PRE_TRAINING", "DISTILLATION"],
};

/** ListFoundationModels: every model in one page, filtered as asked. */
function foundationModels(url: URL, region: string, listed: readonly ListedFoundationModel[]) {
  for (const [name, values] of Object.entries(FILTERS)) {
    const value = url.searchParams.get(name);
    if (value !== null && !values.includes(value)) {
      return awsError(
        400,
        "ValidationException",
        `1 validation error detected: Value '${value}' at '${name}' failed to satisfy ` +
          `constraint: Member must satisfy enum value set: [${values.join(", ")}]`,
      );
    }
  }
  const provider = url.searchParams.get("byProvider");
  const modality = url.searchParams.get("byOutputModality");
  const inference = url.searchParams.get("byInferenceType");
  const kept = listed.filter((model) =>
    (provider === null || model.providerName.toLowerCase() === provider.toLowerCase()) &&
    (modality === null || model.outputModalities.includes(modality)) &&
    (inference === null || model.inferenceTypesSupported.includes(inference))
  );
  return Response.json({
    modelSummaries: kept.map((model) => ({
      modelArn: `arn:aws:bedrock:${region}::foundation-model/${model.modelId}`,
      modelId: model.modelId,
      modelName: model.modelName,
      providerName: model.providerName,
      inputModalities: ["TEXT"],
      outputModalities: model.outputModalities,
      responseStreamingSupported: model.outputModalities.includes("TEXT"),
      customizationsSupported: [],
      inferenceTypesSupported: model.inferenceTypesSupported,
      modelLifecycle: { status: "ACTIVE" },
    })),
  });
}

/** ListInferenceProfiles: a page of the profiles of the asked type. */
function inferenceProfiles(
  url: URL,
  region: string,
  options: { listed: readonly ListedInferenceProfile[]; pageSize?: number },
) {
  const invalid = (message: string) => awsError(400, "ValidationException", message);
  const maxResults = Number(url.searchParams.get("maxResults") ?? "1000");
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > 1000) {
    return invalid(
      "1 validation error detected: Value at 'maxResults' failed to satisfy constraint: " +
        "Member must have value less than or equal to 1000 and greater than or equal to 1",
    );
  }
  const type = url.searchParams.get("type") ?? "SYSTEM_DEFINED";
  if (type !== "SYSTEM_DEFINED" && type !== "APPLICATION") {
    return invalid(
      `1 validation error detected: Value '${type}' at 'typeEquals' failed to satisfy ` +
        "constraint: Member must satisfy enum value set: [SYSTEM_DEFINED, APPLICATION]",
    );
  }
  const kept = options.listed.filter((profile) => profile.type === type);
  let start = 0;
  const token = url.searchParams.get("nextToken");
  if (token !== null) {
    const read = /^sim-(SYSTEM_DEFINED|APPLICATION)-(\d+)$/.exec(token);
    if (!read || read[1] !== type || Number(read[2]) > kept.length) {
      return invalid("The pagination token is invalid.");
    }
    start = Number(read[2]);
  }
  const page = kept.slice(start, start + Math.min(maxResults, options.pageSize ?? 1000));
  const end = start + page.length;
  return Response.json({
    inferenceProfileSummaries: page.map((profile) => ({
      inferenceProfileArn: profile.type === "APPLICATION"
        ? `arn:aws:bedrock:${region}:123456789012:application-inference-profile/` +
          profile.inferenceProfileId
        : `arn:aws:bedrock:${region}:123456789012:inference-profile/${profile.inferenceProfileId}`,
      inferenceProfileId: profile.inferenceProfileId,
      inferenceProfileName: profile.inferenceProfileName,
      models: [{
        modelArn: `arn:aws:bedrock:${region}::foundation-model/` +
          profile.inferenceProfileId.replace(/^[a-z]{2,4}\./, ""),
      }],
      status: "ACTIVE",
      type: profile.type,
    })),
    ...(end < kept.length ? { nextToken: `sim-${type}-${end}` } : {}),
  });
}

export function startBedrockUpstream(options: BedrockUpstreamOptions = {}): BedrockUpstream {
  const region = options.region ?? "us-east-1";
  const accessKeys = options.accessKeys ?? { [BEDROCK_TEST_ACCESS_KEY]: BEDROCK_TEST_SECRET };
  const models = new Set(
    options.models ??
      [BEDROCK_TEST_MODEL, BEDROCK_TEST_NOVA, ...BEDROCK_EMBEDDING_MODELS, ...BEDROCK_IMAGE_MODELS],
  );
  const counting = new Set(
    options.countingModels ?? [...models].filter((id) => id.startsWith("anthropic.")),
  );
  const model = startAnthropicUpstream({ ...options.anthropic, keys: ["bedrock-internal"] });
  /** The model's answer to an Anthropic body. */
  const askModel = (body: Json, betas: string[] | undefined, signal: AbortSignal) =>
    fetch(`${model.baseUrl}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": "bedrock-internal",
        "anthropic-version": "2023-06-01",
        ...(betas && { "anthropic-beta": betas.join(",") }),
      },
      body: JSON.stringify(body),
      signal,
    });
  const state: BedrockUpstream = {
    endpoint: "",
    region,
    requests: [],
    faults: model.faults,
    options,
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    onError: simulatorOnError,
  }, async (req) => {
    const url = new URL(req.url);
    const bytes = new Uint8Array(await req.arrayBuffer());
    const route = ROUTE.exec(url.pathname);
    let modelId = "";
    try {
      modelId = route ? decodeURIComponent(route[1]) : "";
    } catch {
      // left empty: refused as an invalid identifier below
    }
    const authorization = req.headers.get("authorization") ?? "";
    const record: BedrockRecordedRequest = {
      path: url.pathname,
      modelId,
      auth: authorization.startsWith("AWS4-HMAC-SHA256 ")
        ? "sigv4"
        : authorization.startsWith("Bearer ")
        ? "api-key"
        : "none",
      headers: Object.fromEntries(req.headers),
    };
    state.requests.push(record);
    const refuse = (status: number, type: string, message: string) => {
      record.refused = type;
      return awsError(status, type, message);
    };
    if (record.auth === "api-key") {
      if (!(options.apiKeys ?? []).includes(authorization.slice("Bearer ".length))) {
        return refuse(
          403,
          "UnrecognizedClientException",
          "Invalid API Key format: Must start with pre-defined prefix",
        );
      }
    } else {
      const refusal = await sigV4Refusal(
        { method: req.method, url: req.url, headers: req.headers },
        bytes,
        {
          secrets: accessKeys,
          sessionTokens: options.sessionTokens,
          region,
          service: "bedrock",
          now: options.now,
        },
      );
      if (refusal) return refuse(403, refusal.type, refusal.message);
    }
    if (req.method === "GET" && url.pathname === "/foundation-models") {
      return foundationModels(url, region, options.foundationModels ?? BEDROCK_FOUNDATION_MODELS);
    }
    if (req.method === "GET" && url.pathname === "/inference-profiles") {
      return inferenceProfiles(url, region, {
        listed: options.inferenceProfiles ?? BEDROCK_INFERENCE_PROFILES,
        pageSize: options.profilesPageSize,
      });
    }
    if (req.method !== "POST" || !route) {
      return refuse(404, "UnknownOperationException", "UnknownOperationException");
    }
    let body: Json;
    try {
      body = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return refuse(
        400,
        "ValidationException",
        "Malformed input request, please reformat your input and try again.",
      );
    }
    record.body = body;
    if (!models.has(modelId)) {
      return refuse(400, "ValidationException", "The provided model identifier is invalid.");
    }
    const started = Date.now();
    if (route[2] === "count-tokens") {
      if (!counting.has(modelId)) {
        return refuse(
          400,
          "ValidationException",
          "The provided model doesn't support counting tokens.",
        );
      }
      const counted = countedBody(body, modelId);
      if (typeof counted === "string") return refuse(400, "ValidationException", counted);
      const answer = await fetch(`${model.baseUrl}/v1/messages/count_tokens`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": "bedrock-internal",
          "anthropic-version": "2023-06-01",
          ...(counted.betas && { "anthropic-beta": counted.betas.join(",") }),
        },
        body: JSON.stringify(counted.body),
        signal: req.signal,
      });
      if (!answer.ok) return await modelError(answer);
      const { input_tokens: inputTokens } = await answer.json();
      return Response.json({ inputTokens });
    }
    if (route[2] === "converse" || route[2] === "converse-stream") {
      const anthropic = /(^|[.:/])anthropic\./.test(modelId);
      const asked = anthropicBodyOfConverse(body, { modelId, anthropic });
      if (typeof asked === "string") return refuse(400, "ValidationException", asked);
      const stream = route[2] === "converse-stream";
      const answer = await askModel({ ...asked, stream }, undefined, req.signal);
      if (!answer.ok) return await modelError(answer);
      if (!stream) {
        return Response.json(converseAnswerOf(await answer.json(), Date.now() - started));
      }
      return asConverseStream(answer, started);
    }
    const embedded = route[2] === "invoke" ? bedrockEmbeddingAnswer(modelId, body) : undefined;
    if (typeof embedded === "string") return refuse(400, "ValidationException", embedded);
    if (embedded !== undefined) {
      return Response.json(embedded, {
        headers: {
          ...(embedded.inputTextTokenCount !== undefined && {
            "x-amzn-bedrock-input-token-count": String(embedded.inputTextTokenCount),
          }),
        },
      });
    }
    const drawn = route[2] === "invoke" ? bedrockImageAnswer(modelId, body) : undefined;
    if (typeof drawn === "string") return refuse(400, "ValidationException", drawn);
    if (drawn !== undefined) return Response.json(drawn);
    if (!/(^|[.:/])anthropic\./.test(modelId)) {
      return refuse(
        400,
        "ValidationException",
        "Malformed input request: InvokeModel of this model takes its own body, not Anthropic's",
      );
    }
    const refusal = invokeBodyRefusal(body);
    if (refusal) return refuse(400, "ValidationException", refusal);
    const stream = route[2] === "invoke-with-response-stream";
    const { anthropic_version: _version, anthropic_beta: betas, ...rest } = body;
    const answer = await askModel(
      { ...rest, model: modelId, stream },
      Array.isArray(betas) ? betas : undefined,
      req.signal,
    );
    if (!answer.ok) return await modelError(answer);
    if (!stream) {
      return new Response(await answer.text(), {
        headers: {
          "content-type": "application/json",
          "x-amzn-bedrock-input-token-count": "0",
        },
      });
    }
    return asEventStream(answer, started);
  });
  state.endpoint = `http://127.0.0.1:${server.addr.port}`;
  state.close = async () => {
    await server.shutdown();
    await model.close();
  };
  return state;
}
