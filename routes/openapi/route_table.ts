/**
 * Every route the gateway serves, as the OpenAPI document describes it: method, path, summary,
 * the zod schema that validates its body (the same one the route uses), its answers and its
 * credentials. tests/e2e/openapi_test.ts fails on any route of the app missing here.
 */

import { z } from "zod";
import {
  creditInputSchema,
  keyInputSchema,
  keyPatchSchema,
  rotateInputSchema,
} from "../../core/keys/key_schema.ts";
import { channelCreateSchema, channelPatchBodySchema } from "../../core/channels/channel_schema.ts";
import { modelInputSchema, modelPatchSchema } from "../../core/channels/catalog.ts";
import { chatRequestSchema } from "../../core/formats/openai_chat/request_schema.ts";
import { responsesRequestSchema } from "../../core/formats/openai_responses/request_schema.ts";
import {
  countTokensSchema,
  messagesRequestSchema,
} from "../../core/formats/anthropic/request_schema.ts";
import { editFieldsSchema, generationRequestSchema } from "../../core/images/request_schema.ts";
import { videoFieldsSchema } from "../../core/video/request_schema.ts";
import { channelProbeSchema } from "../../core/upstream/channel_probe.ts";
import { captureInputSchema } from "../../core/telemetry/body_capture.ts";
import { countTokensRequestSchema, generateContentRequestSchema } from "../generate_content.ts";
import {
  webhookCreateSchema,
  webhookPatchSchema,
  webhookRotateSchema,
} from "../../core/webhooks/endpoint_schema.ts";

/**
 * A task request's schema with `callback_url` (routes/callback_url.ts), which the route takes out
 * before the schema validates the rest.
 */
function withCallbackUrl<T extends z.ZodObject>(schema: T) {
  return schema.extend({
    callback_url: z.string().optional().describe(
      "A task's own webhook receiver, an absolute public http or https URL: images only with " +
        "`X-Gateway-Async-Task: true`; the key's webhook endpoint must allow task callbacks " +
        "(docs/webhooks.md, callback_url)",
    ),
  });
}

/** Who may call a route: the admin token, a client key in the forms of an interface, or anyone. */
export type RouteSecurity =
  | "admin"
  | "openai"
  | "anthropic"
  | "gemini"
  | "any_key"
  | "metrics"
  | "none";

/** The error envelope a route answers errors in. */
export type ErrorEnvelope = "admin" | "openai" | "anthropic" | "gemini";

export interface RouteBody {
  /** The component name of the body's schema. */
  name: string;
  schema: z.ZodType;
  /** multipart/form-data: the file fields beside the schema's text fields. */
  files?: Record<string, string>;
}

export interface QueryParameter {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

export interface ApiRoute {
  method: "get" | "head" | "post" | "put" | "patch" | "delete";
  /** The OpenAPI path (`/admin/keys/{id}`). */
  path: string;
  /** The path as registered in the app when it differs from `path` with `{x}` as `:x`. */
  registeredAs?: string;
  tag: string;
  summary: string;
  security: RouteSecurity;
  errors: ErrorEnvelope;
  body?: RouteBody;
  query?: QueryParameter[];
  /** Success status → what it answers; a string names a component schema of the answer. */
  answers: Record<string, { description: string; schema?: string; contentType?: string }>;
}

const integer = (minimum: number, maximum: number) => ({ type: "integer", minimum, maximum });
const text = { type: "string" };

/** `?cursor=&limit=&order=&since=&until=` of every admin list. */
export const LIST_QUERY: QueryParameter[] = [
  { name: "limit", description: "records a page, 1-1000 (default 50)", schema: integer(1, 1000) },
  { name: "cursor", description: "the `cursor` of the previous page", schema: text },
  {
    name: "order",
    description: "`desc` (newest first, default) or `asc`",
    schema: { type: "string", enum: ["asc", "desc"] },
  },
  {
    name: "since",
    description: "ISO 8601 time, inclusive",
    schema: { type: "string", format: "date-time" },
  },
  {
    name: "until",
    description: "ISO 8601 time, inclusive",
    schema: { type: "string", format: "date-time" },
  },
];
const KEY_FILTER: QueryParameter = { name: "key", description: "a key id", schema: text };

/** The request log's filters beside `key`. */
const REQUEST_FILTERS: QueryParameter[] = [
  { name: "model", description: "the model asked for", schema: text },
  { name: "channel", description: "a channel id", schema: text },
  { name: "status", description: "`2xx`, `4xx`, `5xx` or one status code", schema: text },
  {
    name: "interface",
    description:
      "`openai-chat`, `openai-responses`, `openai-images`, `video`, `anthropic`, `gemini`, `openai`",
    schema: text,
  },
  { name: "request_id", description: "one request id", schema: text },
];

const json = (description: string, schema?: string) => ({ description, schema });
const created = (description: string) => ({ "201": json(description) });
const deleted = { "204": { description: "deleted; no body" } };
const page = (description: string, schema?: string) => ({
  "200": json(`{data: [${description}], cursor}`, schema),
});

const admin = (
  route: Omit<ApiRoute, "security" | "errors" | "tag"> & { tag?: string },
): ApiRoute => ({ tag: "admin", ...route, security: "admin", errors: "admin" });

const ADMIN_ROUTES: ApiRoute[] = [
  admin({
    method: "post",
    path: "/admin/keys",
    summary: "Create a key; the secret `key` is in this answer only",
    body: { name: "KeyInput", schema: keyInputSchema },
    answers: created("the key's view with `key`, the secret, shown once"),
  }),
  admin({
    method: "get",
    path: "/admin/keys",
    summary: "List keys, filtered and sorted",
    query: [
      { name: "limit", description: "keys a page, 1-1000 (default 50)", schema: integer(1, 1000) },
      { name: "cursor", description: "the `cursor` of the previous page", schema: text },
      {
        name: "order",
        description: "`desc` (default) or `asc`",
        schema: { type: "string", enum: ["asc", "desc"] },
      },
      { name: "name_prefix", description: "keys whose name starts with this", schema: text },
      { name: "group", description: "keys of this group", schema: text },
      {
        name: "enabled",
        description: "`true` or `false`",
        schema: { type: "string", enum: ["true", "false"] },
      },
      {
        name: "expires_before",
        description: "keys expiring before this ISO 8601 time",
        schema: { type: "string", format: "date-time" },
      },
      {
        name: "sort",
        description: "`created` (default), `spend` (today) or `last_used`",
        schema: { type: "string", enum: ["created", "spend", "last_used"] },
      },
    ],
    answers: page("key views"),
  }),
  admin({
    method: "get",
    path: "/admin/keys/{id}",
    summary: "Read a key",
    answers: { "200": json("the key's view (no secret, no hash)") },
  }),
  admin({
    method: "patch",
    path: "/admin/keys/{id}",
    summary: "Change exactly the fields sent",
    body: { name: "KeyPatch", schema: keyPatchSchema },
    answers: { "200": json("the key's view") },
  }),
  admin({
    method: "delete",
    path: "/admin/keys/{id}",
    summary: "Delete a key (its ledger stays)",
    answers: deleted,
  }),
  admin({
    method: "post",
    path: "/admin/keys/{id}/rotate",
    summary:
      "A new secret (shown once); the old one works until the grace ends; idempotent under Idempotency-Key",
    body: { name: "RotateInput", schema: rotateInputSchema },
    answers: { "200": json("the key's view with the new `key`") },
  }),
  admin({
    method: "post",
    path: "/admin/keys/{id}/credit",
    summary: "Add (or, negative, take) money; a `ref` makes it happen once",
    body: { name: "CreditInput", schema: creditInputSchema },
    answers: created("the ledger entry"),
  }),
  admin({
    method: "post",
    path: "/admin/channels",
    summary: "Create a channel; upstream keys are sealed and never echoed",
    body: { name: "ChannelCreate", schema: channelCreateSchema },
    answers: created("the channel's view (`key_count`, never keys)"),
  }),
  admin({
    method: "get",
    path: "/admin/channels",
    summary: "List channels",
    query: LIST_QUERY,
    answers: page("channel views"),
  }),
  admin({
    method: "get",
    path: "/admin/channels/{id}",
    summary: "Read a channel",
    answers: { "200": json("the channel's view") },
  }),
  admin({
    method: "patch",
    path: "/admin/channels/{id}",
    summary: "Change exactly the fields sent",
    body: { name: "ChannelPatch", schema: channelPatchBodySchema },
    answers: { "200": json("the channel's view") },
  }),
  admin({
    method: "delete",
    path: "/admin/channels/{id}",
    summary: "Delete a channel",
    answers: deleted,
  }),
  admin({
    method: "get",
    path: "/admin/models",
    summary: "The whole catalog",
    answers: page("catalog entries"),
  }),
  admin({
    method: "get",
    path: "/admin/models/{id}",
    summary: "Read a catalog entry",
    answers: { "200": json("the catalog entry") },
  }),
  admin({
    method: "put",
    path: "/admin/models/{id}",
    summary: "Write a catalog entry whole (kind, groups, price, limits)",
    body: { name: "ModelInput", schema: modelInputSchema },
    answers: { "200": json("the catalog entry") },
  }),
  admin({
    method: "patch",
    path: "/admin/models/{id}",
    summary: "Change exactly the fields sent (price, enabled, …)",
    body: { name: "ModelPatch", schema: modelPatchSchema },
    answers: { "200": json("the catalog entry") },
  }),
  admin({
    method: "delete",
    path: "/admin/models/{id}",
    summary: "Delete a catalog entry (409 while a channel serves it)",
    answers: deleted,
  }),
  admin({
    method: "get",
    path: "/admin/ledger",
    summary: "Ledger entries of one key or every key",
    query: [...LIST_QUERY, KEY_FILTER],
    answers: page("ledger entries {id, key_id, type, amount, balance_after, ref, at, …}"),
  }),
  admin({
    method: "get",
    path: "/admin/requests",
    summary: "The request log, filtered",
    query: [...LIST_QUERY, KEY_FILTER, ...REQUEST_FILTERS],
    answers: page("request records"),
  }),
  admin({
    method: "get",
    path: "/admin/requests/export",
    summary: "The filtered request log as CSV or JSON Lines, streamed",
    query: [
      {
        name: "format",
        description: "`jsonl` (default) or `csv`",
        schema: { type: "string", enum: ["jsonl", "csv"] },
      },
      { name: "order", description: "`desc` (default) or `asc`", schema: text },
      {
        name: "since",
        description: "ISO 8601 time",
        schema: { type: "string", format: "date-time" },
      },
      {
        name: "until",
        description: "ISO 8601 time",
        schema: { type: "string", format: "date-time" },
      },
      KEY_FILTER,
      ...REQUEST_FILTERS,
    ],
    answers: {
      "200": {
        description: "one record a line (JSON Lines) or CSV with a header row",
        contentType: "text/csv",
      },
    },
  }),
  admin({
    method: "get",
    path: "/admin/requests/{id}",
    summary: "One request record with its receipt, attempts and ignored fields",
    answers: { "200": json("the record with `receipt`") },
  }),
  admin({
    method: "get",
    path: "/admin/usage",
    summary: "Totals per hour or day by key, model and channel, from rollups",
    query: [
      {
        name: "group_by",
        description: "any of `key`, `model`, `channel`, comma-separated",
        schema: text,
      },
      {
        name: "interval",
        description: "`hour` (default) or `day`",
        schema: { type: "string", enum: ["hour", "day"] },
      },
      {
        name: "from",
        description: "ISO 8601 time (default 24 h ago)",
        schema: { type: "string", format: "date-time" },
      },
      {
        name: "to",
        description: "ISO 8601 time (default now)",
        schema: { type: "string", format: "date-time" },
      },
    ],
    answers: {
      "200": json("`{data: [{period, key_id?, model?, channel_id?, requests, …, cost}]}`"),
    },
  }),
  admin({
    method: "get",
    path: "/admin/tasks",
    summary: "Image and video task records",
    query: [
      ...LIST_QUERY,
      KEY_FILTER,
      {
        name: "kind",
        description: "`image` or `video`",
        schema: { type: "string", enum: ["image", "video"] },
      },
      {
        name: "status",
        description: "the task's status",
        schema: { type: "string", enum: ["submitted", "in_progress", "succeeded", "failed"] },
      },
      { name: "model", description: "a model id", schema: text },
    ],
    answers: page("task records"),
  }),
  admin({
    method: "get",
    path: "/admin/tasks/{id}",
    summary: "A task with its billing: held, settled, refunded and its ledger entry ids",
    answers: { "200": json("the task record with `billing`") },
  }),
  admin({
    method: "get",
    path: "/admin/tasks/{id}/deliveries",
    summary: "The webhook deliveries of a task's events, newest first",
    query: LIST_QUERY,
    answers: page("deliveries"),
  }),
  admin({
    method: "post",
    path: "/admin/webhooks",
    summary: "Register a webhook endpoint; its `secret` (whsec_…) is in this answer only",
    body: { name: "WebhookInput", schema: webhookCreateSchema },
    answers: created("the endpoint's view with `secret`, shown once"),
  }),
  admin({
    method: "get",
    path: "/admin/webhooks",
    summary: "List webhook endpoints",
    query: LIST_QUERY,
    answers: page("endpoint views"),
  }),
  admin({
    method: "get",
    path: "/admin/webhooks/{id}",
    summary: "Read a webhook endpoint (never its secret)",
    answers: { "200": json("the endpoint's view") },
  }),
  admin({
    method: "patch",
    path: "/admin/webhooks/{id}",
    summary: "Change exactly the fields sent",
    body: { name: "WebhookPatch", schema: webhookPatchSchema },
    answers: { "200": json("the endpoint's view") },
  }),
  admin({
    method: "delete",
    path: "/admin/webhooks/{id}",
    summary: "Delete a webhook endpoint (its delivery history stays until it expires)",
    answers: deleted,
  }),
  admin({
    method: "post",
    path: "/admin/webhooks/{id}/rotate",
    summary: "A new secret (shown once); the old one signs beside it for `grace_seconds`",
    body: { name: "WebhookRotateInput", schema: webhookRotateSchema },
    answers: { "200": json("the endpoint's view with the new `secret`") },
  }),
  admin({
    method: "post",
    path: "/admin/webhooks/{id}/test",
    summary: "Send test: a `webhook.test` delivery now, answered with its attempt",
    answers: { "200": json("the delivery") },
  }),
  admin({
    method: "get",
    path: "/admin/webhooks/{id}/deliveries",
    summary: "The endpoint's deliveries: status, attempts (latency, response code), next attempt",
    query: LIST_QUERY,
    answers: page("deliveries"),
  }),
  admin({
    method: "post",
    path: "/admin/webhooks/{id}/deliveries/{delivery_id}/redeliver",
    summary: "Redeliver: one more attempt now, with the same webhook-id",
    answers: { "200": json("the delivery") },
  }),
  admin({
    method: "post",
    path: "/admin/channels/{id}/test",
    summary: "One minimal real call through a channel, by the model's kind; never billed",
    body: { name: "ChannelTest", schema: channelProbeSchema },
    answers: {
      "200": json("{ok, status, latency_ms, error_class?, error?, model, channel_id, call}"),
    },
  }),
  admin({
    method: "get",
    path: "/admin/keys/{id}/ledger/verify",
    summary: "A key's ledger entries summed against its balance",
    answers: {
      "200": json(
        "{key_id, balance, entries_sum, entries, ok, holds_open, held_open, leases_open, leased_open}",
      ),
    },
  }),
  admin({
    method: "post",
    path: "/admin/keys/{id}/capture",
    summary: "Capture the key's text request and response bodies for `minutes`",
    body: { name: "CaptureInput", schema: captureInputSchema },
    answers: { "200": json("{active, key_id, started_at, until}") },
  }),
  admin({
    method: "get",
    path: "/admin/keys/{id}/capture",
    summary: "Whether the key's bodies are captured, and until when",
    answers: { "200": json("{active, key_id, started_at?, until?}") },
  }),
  admin({
    method: "delete",
    path: "/admin/keys/{id}/capture",
    summary: "Stop capturing the key's bodies",
    answers: { "204": { description: "stopped; no body" } },
  }),
  admin({
    method: "get",
    path: "/admin/requests/{id}/capture",
    summary: "The captured (redacted) bodies of one request",
    answers: { "200": json("the captured request") },
  }),
  admin({
    method: "get",
    path: "/admin/audit",
    summary: "Who changed what: audit records, newest first",
    query: [
      ...LIST_QUERY,
      {
        name: "actor",
        description: "`admin_token`, `console`, `config`, or one session or file (`config:<file>`)",
        schema: text,
      },
      { name: "target_kind", description: "`key`, `channel`, `model`, …", schema: text },
      { name: "target_id", description: "the target's id", schema: text },
    ],
    answers: page("audit records", "AuditPage"),
  }),
];

const KEY_ANSWER = { "200": json("the JSON answer of the interface") };

const CLIENT_ROUTES: ApiRoute[] = [
  {
    method: "post",
    path: "/v1/chat/completions",
    tag: "openai",
    summary: "Chat completions (OpenAI); `stream: true` answers server-sent events",
    security: "openai",
    errors: "openai",
    body: { name: "ChatCompletionsRequest", schema: chatRequestSchema },
    answers: { "200": json("a chat completion, or an SSE stream of chunks") },
  },
  {
    method: "post",
    path: "/v1/responses",
    tag: "openai",
    summary: "Responses (OpenAI)",
    security: "openai",
    errors: "openai",
    body: { name: "ResponsesRequest", schema: responsesRequestSchema },
    answers: { "200": json("a response object, or an SSE stream of events") },
  },
  {
    method: "post",
    path: "/v1/messages",
    tag: "anthropic",
    summary: "Messages (Anthropic)",
    security: "anthropic",
    errors: "anthropic",
    body: { name: "MessagesRequest", schema: messagesRequestSchema },
    answers: { "200": json("a message, or an SSE stream of events") },
  },
  {
    method: "post",
    path: "/v1/messages/count_tokens",
    tag: "anthropic",
    summary: "Count a message's input tokens (Anthropic)",
    security: "anthropic",
    errors: "anthropic",
    body: { name: "CountTokensRequest", schema: countTokensSchema },
    answers: { "200": json("{input_tokens}") },
  },
  ...(["v1beta", "v1"] as const).flatMap((version) =>
    (["generateContent", "streamGenerateContent"] as const).map((method): ApiRoute => ({
      method: "post",
      path: `/${version}/models/{model}:${method}`,
      registeredAs: `/${version}/models/:model`,
      tag: "gemini",
      summary: method === "generateContent"
        ? "Generate content (Gemini): text, or images from an image model"
        : "Generate content as a stream (Gemini): a JSON array, or SSE with ?alt=sse",
      security: "gemini",
      errors: "gemini",
      body: { name: "GenerateContentRequest", schema: generateContentRequestSchema },
      query: method === "streamGenerateContent"
        ? [{
          name: "alt",
          description: "`sse` for server-sent events",
          schema: { type: "string", enum: ["sse", "json"] },
        }]
        : undefined,
      answers: { "200": json("a GenerateContentResponse (or a stream of them)") },
    }))
  ),
  ...(["v1beta", "v1"] as const).map((version): ApiRoute => ({
    method: "post",
    path: `/${version}/models/{model}:countTokens`,
    registeredAs: `/${version}/models/:model`,
    tag: "gemini",
    summary: "Count a request's input tokens (Gemini): upstream where it counts, else estimated; " +
      "not billed",
    security: "gemini",
    errors: "gemini",
    body: { name: "GeminiCountTokensRequest", schema: countTokensRequestSchema },
    answers: { "200": json("a CountTokensResponse: {totalTokens, promptTokensDetails?}") },
  })),
  {
    method: "post",
    path: "/v1/images/generations",
    tag: "images",
    summary: "Generate images (OpenAI Images); `X-Gateway-Async-Task: true` makes a task",
    security: "openai",
    errors: "openai",
    body: { name: "ImageGenerationRequest", schema: withCallbackUrl(generationRequestSchema) },
    answers: { "200": json("{created, data: [{url | b64_json}]}, or a task") },
  },
  {
    method: "post",
    path: "/v1/images/edits",
    tag: "images",
    summary: "Edit images (OpenAI Images): PNGs and an optional mask as multipart",
    security: "openai",
    errors: "openai",
    body: {
      name: "ImageEditFields",
      schema: withCallbackUrl(editFieldsSchema),
      files: {
        image: "the PNG(s) to edit; repeat the field (or `image[]`) for several",
        mask: "an optional PNG mask",
      },
    },
    answers: { "200": json("{created, data: [{url | b64_json}]}, or a task") },
  },
  {
    method: "get",
    path: "/v1/images/tasks/{task_id}",
    tag: "images",
    summary: "An image task's status and results",
    security: "openai",
    errors: "openai",
    answers: { "200": json("{code, message, data: {task_id, status, …}}") },
  },
  {
    method: "post",
    path: "/v1/video/generations",
    tag: "video",
    summary:
      "Submit a video task (multipart; reference files optional); `Idempotency-Key` honoured",
    security: "openai",
    errors: "openai",
    body: {
      name: "VideoFields",
      schema: withCallbackUrl(videoFieldsSchema),
      files: {
        image_1: "reference image",
        image_2: "reference image",
        image_3: "reference image",
        video: "reference video",
        audio: "reference audio",
      },
    },
    answers: { "200": json("{id, status: IN_PROGRESS}") },
  },
  {
    method: "get",
    path: "/v1/video/generations/{task_id}",
    tag: "video",
    summary: "A video task's status, result URL and cost",
    security: "openai",
    errors: "openai",
    answers: { "200": json("{code, message, data: {task_id, status, progress, result_url, …}}") },
  },
  {
    method: "get",
    path: "/v1/models",
    tag: "models",
    summary: "The key's models, in the list shape of the SDK family its credential form names",
    security: "any_key",
    errors: "openai",
    answers: KEY_ANSWER,
  },
  {
    method: "get",
    path: "/v1/models/{id}",
    tag: "models",
    summary: "One of the key's models",
    security: "any_key",
    errors: "openai",
    answers: KEY_ANSWER,
  },
  {
    method: "get",
    path: "/v1beta/models",
    tag: "gemini",
    summary: "The key's models (Gemini list, `pageSize`/`pageToken`)",
    security: "gemini",
    errors: "gemini",
    answers: KEY_ANSWER,
  },
  {
    method: "get",
    path: "/v1beta/models/{id}",
    tag: "gemini",
    summary: "One of the key's models (Gemini)",
    security: "gemini",
    errors: "gemini",
    answers: KEY_ANSWER,
  },
  {
    method: "get",
    path: "/v1/me",
    tag: "self",
    summary: "The calling key's own state: limits, balance, expiry (any credential form)",
    security: "any_key",
    errors: "openai",
    answers: { "200": json("the key's view, as the admin API shows it, without secrets") },
  },
  {
    method: "get",
    path: "/v1/me/requests",
    tag: "self",
    summary: "The calling key's own request records (no channels, no upstream URLs)",
    security: "any_key",
    errors: "openai",
    query: LIST_QUERY,
    answers: page("request records"),
  },
  {
    method: "get",
    path: "/v1/me/ledger",
    tag: "self",
    summary: "The calling key's own ledger entries",
    security: "any_key",
    errors: "openai",
    query: LIST_QUERY,
    answers: page("ledger entries"),
  },
  {
    method: "get",
    path: "/v1/me/usage",
    tag: "self",
    summary: "The calling key's own usage per hour or day, by model if asked, from the rollups",
    security: "any_key",
    errors: "openai",
    query: [
      { name: "group_by", description: "`model`, or nothing", schema: text },
      {
        name: "interval",
        description: "`hour` (default) or `day`",
        schema: { type: "string", enum: ["hour", "day"] },
      },
      {
        name: "from",
        description: "ISO 8601 time (default 24 h before `to`)",
        schema: { type: "string", format: "date-time" },
      },
      {
        name: "to",
        description: "ISO 8601 time (default now)",
        schema: { type: "string", format: "date-time" },
      },
    ],
    answers: {
      "200": {
        description: "`{from, to, interval, group_by, data: [{start, model?, requests, …, cost}]}`",
      },
    },
  },
];

const OPERATION_ROUTES: ApiRoute[] = [
  ...(["get", "head"] as const).map((method): ApiRoute => ({
    method,
    path: "/",
    tag: "operations",
    summary: "What this service is: {name, version, docs, openapi, console}",
    security: "none",
    errors: "openai",
    answers: { "200": json("{name, version, docs, openapi, console}") },
  })),
  {
    method: "get",
    path: "/openapi.json",
    tag: "operations",
    summary: "This document",
    security: "none",
    errors: "openai",
    answers: { "200": json("the OpenAPI 3.1 document") },
  },
  {
    method: "get",
    path: "/healthz",
    tag: "operations",
    summary: "200 once ready, 503 while starting or stopping",
    security: "none",
    errors: "openai",
    answers: { "200": json("{status: ok}") },
  },
  {
    method: "get",
    path: "/metrics",
    tag: "operations",
    summary: "Prometheus metrics (a bearer token when GATEWAY_METRICS_TOKEN is set)",
    security: "metrics",
    errors: "openai",
    answers: { "200": { description: "Prometheus text format", contentType: "text/plain" } },
  },
  ...(["get", "head"] as const).map((method): ApiRoute => ({
    method,
    path: "/media/{file}",
    tag: "operations",
    summary: "Hosted media (image results, task inputs) by unguessable id; byte ranges served",
    security: "none",
    errors: "openai",
    answers: {
      "200": { description: "the media bytes", contentType: "application/octet-stream" },
      "206": { description: "one byte range", contentType: "application/octet-stream" },
    },
  })),
];

/** Every route of the gateway. */
export const API_ROUTES: readonly ApiRoute[] = [
  ...OPERATION_ROUTES,
  ...CLIENT_ROUTES,
  ...ADMIN_ROUTES,
];
