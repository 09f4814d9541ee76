/** What a channel (an upstream route) is, as the admin API and the config file accept it. */

import { z } from "zod";
import { patchShape } from "../util/patch_schema.ts";
import { FINGERPRINT_PATTERN, type KeyHint } from "./key_hint.ts";
import { VIDEO_RESOLUTIONS } from "../jobs/video_job.ts";
import type { AutoDisabled } from "./auto_marks.ts";

export const CHANNEL_TYPES = [
  "openai",
  "openai-responses",
  "anthropic",
  "gemini",
  "openai-images",
  "ark-video",
  "gateway-video",
  "rerank",
  "azure-openai",
  "azure-openai-responses",
  "openai-video",
  "veo",
  "vertex",
  "bedrock",
] as const;

/** How an Azure OpenAI channel's URLs are made (core/providers/azure_openai_urls.ts). */
export const AZURE_URL_SHAPES = ["deployment", "v1"] as const;

/**
 * How an Azure OpenAI channel signs in: its keys are API keys (`api-key` header), Entra ID
 * bearer tokens given as they are, or Entra ID client secrets exchanged for tokens.
 */
export const AZURE_AUTHS = ["api-key", "bearer", "entra"] as const;

/** Who makes a model on Vertex AI: Google (Gemini) or Anthropic (Claude). */
export const VERTEX_PUBLISHERS = ["google", "anthropic"] as const;
/**
 * How a Bedrock channel signs in: its keys are AWS access keys (`ACCESS_KEY_ID:SECRET_ACCESS_KEY`,
 * with `:SESSION_TOKEN` for temporary ones) signed with SigV4, or Bedrock API keys (bearer).
 */
export const BEDROCK_AUTHS = ["sigv4", "api-key"] as const;

/**
 * Which Bedrock API a channel calls: `invoke` (InvokeModel with Anthropic's own bodies) or
 * `converse` (the Converse API, every model). Unset: `invoke` for Anthropic models, else
 * `converse`.
 */
export const BEDROCK_APIS = ["invoke", "converse"] as const;

/** The paths a `rerank` channel may call on its base_url: Jina's and vLLM's, or Cohere's v2. */
export const RERANK_PATHS = ["/v1/rerank", "/v2/rerank"] as const;

export type ChannelType = typeof CHANNEL_TYPES[number];

/** A value that can stand in an HTTP header list: printable ASCII, no comma or space. */
function headerToken(what: string) {
  return z.string().min(1).max(100).refine(
    (value) => /^[\x21-\x2b\x2d-\x7e]+$/.test(value),
    `${what} is printable ASCII without spaces or commas`,
  );
}

/** A beta name, or a prefix of names ending with `*` (`context-management-*`). */
const betaPattern = headerToken("an anthropic_betas entry").refine(
  (value) => !value.slice(0, -1).includes("*"),
  "an anthropic_betas entry may have '*' only at its end",
);

/**
 * Whether `url` has no `user:password@` part. Refused rather than sealed: a channel's upstream
 * credential has one place, `keys`, and a URL goes into records, logs and answers in clear.
 */
function withoutCredentials(url: string): boolean {
  const parsed = URL.parse(url);
  return parsed !== null && parsed.username === "" && parsed.password === "";
}

const channelFields = {
  name: z.string().min(1).max(200),
  type: z.enum(CHANNEL_TYPES),
  base_url: z.url({ protocol: /^https?$/ }).refine(
    withoutCredentials,
    "a base_url cannot hold credentials (user:password@): a URL is shown, audited and logged; " +
      "put the upstream's key in keys, which are sealed",
  ).transform((url) => url.replace(/\/+$/, "")),
  /** Upstream keys; none only on types that may have none (registry's `keyless` rule). */
  keys: z.array(z.string().min(1)),
  models: z.array(z.string().min(1)).min(1),
  model_map: z.record(z.string(), z.string().min(1)).default({}),
  priority: z.int().default(0),
  weight: z.int().positive().default(1),
  groups: z.array(z.string().min(1)).min(1).default(["default"]),
  enabled: z.boolean().default(true),
  timeout_ms: z.int().positive().max(3_600_000).default(120_000),
  /** Longest silence of a streaming upstream before the stream is ended (what came is billed). */
  stream_idle_ms: z.int().positive().max(3_600_000).default(60_000),
  /**
   * A key refused (401/403) this many times in a row is disabled automatically until a recovery
   * probe passes (core/channels/auto_disable.ts); 0: never. Default 3.
   */
  auto_disable_refusals: z.int().min(0).max(1000).optional(),
  /**
   * A channel whose every attempt failed for this long is disabled automatically until a
   * recovery probe passes; 0: never. Default 300000 (5 minutes).
   */
  auto_disable_after_ms: z.int().min(0).max(7 * 86_400_000).optional(),
  /** Retries on other channels after a failure before the first byte (request-level default). */
  max_retries: z.int().min(0).max(10).optional(),
  /**
   * When the channel's breaker opens (core/channels/breakers.ts): at least `min_failures` failed
   * among the last `window` attempts, and at least `failure_rate` of them; and the cooldowns of
   * the first, second… opening in a row (the last repeats). Unset fields take the defaults.
   * `enabled: false` turns the channel's breakers off: it is tried on every request, and a 429's
   * retry-after is not remembered.
   */
  breaker: z.strictObject({
    enabled: z.boolean().optional(),
    min_failures: z.int().min(1).max(1000).optional(),
    failure_rate: z.number().gt(0).max(1).optional(),
    window: z.int().min(1).max(1000).optional(),
    cooldowns_ms: z.array(z.int().positive().max(86_400_000)).min(1).max(20).optional(),
  }).optional(),
  /** Video channels: the resolution asked for when the model name carries none (vid-2-cheap). */
  video_resolution: z.enum(VIDEO_RESOLUTIONS).optional(),
  /**
   * Rerank channels: the path after base_url, and with it the wire shape: `/v1/rerank` (Jina,
   * vLLM, Cohere v1; the default) or `/v2/rerank` (Cohere v2).
   */
  rerank_path: z.enum(RERANK_PATHS).optional(),
  /**
   * Azure OpenAI channels: `deployment` (the default; `{base_url}/openai/deployments/{model}/…`
   * with `?api-version=`) or `v1` (`{base_url}/openai/v1/…`, the model in the body).
   */
  url_shape: z.enum(AZURE_URL_SHAPES).optional(),
  /** Azure OpenAI channels: the `api-version` query (needed by the deployment shape). */
  api_version: z.string().regex(/^[A-Za-z0-9.-]{1,40}$/, {
    error: "an api_version is Azure's version name, such as '2024-10-21' or '2025-04-01-preview'",
  }).optional(),
  /** Azure OpenAI channels: what the keys are (default `api-key`). */
  azure_auth: z.enum(AZURE_AUTHS).optional(),
  /** Azure OpenAI channels signing in with Entra ID client secrets: the directory (tenant). */
  entra_tenant_id: z.string().regex(/^[A-Za-z0-9.-]{1,100}$/, {
    error: "an entra_tenant_id is a directory id (a GUID) or a domain name",
  }).optional(),
  /** The application (client) id whose client secrets the keys are. */
  entra_client_id: z.string().regex(/^[A-Za-z0-9-]{1,100}$/, {
    error: "an entra_client_id is an application (client) id, a GUID",
  }).optional(),
  /** The Entra ID authority host (default https://login.microsoftonline.com; sovereign clouds differ). */
  entra_authority: z.url({ protocol: /^https?$/ }).refine(
    withoutCredentials,
    "an entra_authority cannot hold credentials",
  ).transform((url) => url.replace(/\/+$/, "")).optional(),
  /** Bedrock channels: the AWS region the calls are signed for (`us-east-1`). */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, {
    error: "a region is an AWS region name, such as 'us-east-1' or 'eu-central-1'",
  }).optional(),
  /** Bedrock channels: what the keys are (default `sigv4`: AWS access keys). */
  bedrock_auth: z.enum(BEDROCK_AUTHS).optional(),
  /** Bedrock channels: InvokeModel with Anthropic bodies, or Converse (see BEDROCK_APIS). */
  bedrock_api: z.enum(BEDROCK_APIS).optional(),
  /**
   * `openai` channels: false for upstreams that refuse `stream_options` (Mistral, which reports
   * a stream's usage in its last chunk unasked); default true (usage asked for every stream).
   */
  send_stream_options: z.boolean().optional(),
  /** Anthropic channels: the `anthropic-version` sent when the client sends none. */
  anthropic_version: headerToken("anthropic_version").optional(),
  /** Vertex channels: the Google Cloud project id the calls are made in. */
  project: z.string().regex(
    /^[a-z0-9][a-z0-9.:-]{0,99}$/,
    "a Google Cloud project id: lowercase letters, digits and '-' (e.g. 'my-project-123')",
  ).optional(),
  /** Vertex channels: the region (`us-central1`, `europe-west4`…) or `global`. */
  location: z.string().regex(
    /^[a-z][a-z0-9-]{0,49}$/,
    "a Google Cloud region such as 'us-central1', or 'global'",
  ).optional(),
  /**
   * Vertex channels: the publisher of every model of the channel. Unset: by the model's name
   * upstream, `claude-*` Anthropic's, any other Google's.
   */
  vertex_publisher: z.enum(VERTEX_PUBLISHERS).optional(),
  /** Anthropic channels: which of the client's `anthropic-beta` values go upstream. */
  anthropic_betas: z.strictObject({
    allow: z.array(betaPattern).optional(),
    deny: z.array(betaPattern).optional(),
  }).optional(),
};

export const channelInputSchema = z.strictObject(channelFields);

/** A PATCH changes exactly the fields it names. */
export const channelPatchSchema = z.strictObject(patchShape(channelFields));

/** Sent beside a channel's fields: create catalog entries for models the catalog lacks. */
export const createModelsField = { create_models: z.boolean().optional() };

export const channelCreateSchema = z.strictObject({ ...channelFields, ...createModelsField });
/** PATCH operations on single upstream keys (not stored fields): applied remove first, then add. */
export const keyOperationFields = {
  add_keys: z.array(z.string().min(1)).min(1).optional(),
  remove_keys: z.array(
    z.string().regex(FINGERPRINT_PATTERN, {
      error: "must be a key fingerprint as GET shows it: 8 hex characters such as '3f2a9c1e'",
    }),
  ).min(1).optional(),
};

/**
 * The operator's re-enable: clears what the gateway disabled on its own (the channel's and its
 * keys' automatic marks), audited as the operator's change. `enabled` is the operator's own field.
 */
export const clearAutoDisabledField = { clear_auto_disabled: z.literal(true).optional() };

export const channelPatchBodySchema = z.strictObject({
  ...channelPatchSchema.shape,
  ...createModelsField,
  ...keyOperationFields,
  ...clearAutoDisabledField,
});

export type ChannelInput = z.infer<typeof channelInputSchema>;

/** A channel as stored: upstream keys sealed, never in clear. */
export interface StoredChannel extends Omit<ChannelInput, "keys"> {
  id: string;
  sealed_keys: string[];
  source: "admin" | "config";
  created_at: string;
  updated_at: string;
}

/** A channel ready to route to, with upstream keys opened in memory only. */
export interface Channel extends Omit<StoredChannel, "sealed_keys"> {
  keys: string[];
  /**
   * Each key's fingerprint (key_hint.ts) by the key, set by the registry; a map, so a copy of the
   * channel narrowed to some of its keys still names them right. In memory only.
   */
  fingerprints?: ReadonlyMap<string, string>;
  /** What the gateway disabled on its own (auto_disable.ts); set by the registry. */
  auto_disabled?: AutoDisabled | null;
}

/** The admin view: everything but the secrets; each key by its hint (in the keys' order). */
export function publicChannel(channel: StoredChannel, keyHints: KeyHint[]) {
  const { sealed_keys, ...rest } = channel;
  return { ...rest, key_count: sealed_keys.length, keys: keyHints };
}
