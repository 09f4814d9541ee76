/**
 * The upstreams' own model lists (what a channel's "Fetch models" reads): OpenAI's
 * `GET {base_url}/models`, Anthropic's `GET /v1/models` (paged by `after_id`) and Gemini's
 * `GET /v1beta/models` (paged by `pageToken`); Vertex AI's and Bedrock's are in
 * vertex_model_list.ts and bedrock_model_list.ts. Each reads its answer leniently: an entry without
 * an id is dropped, never an error.
 */

import { z } from "zod";
import { listOf, optional, optionalString, readLenientJson } from "../util/lenient_schema.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import type { Channel } from "../channels/channel_schema.ts";

/** One model of an upstream's list. */
export interface UpstreamModel {
  /** The name the upstream takes in a request. */
  id: string;
  /** Its display name, when the upstream gives one. */
  label?: string;
}

/** One page of a list; `next` asks for the following page. */
export interface ModelListPage {
  models: UpstreamModel[];
  next?: string;
}

/** The page a list call asked for: of `channel`, `next` (undefined: the first page). */
export interface AskedPage {
  channel: Channel;
  next?: string;
}

/**
 * How a channel type lists its upstream's models: the request for a page (built at once, or after
 * a token is fetched or a signature made), and how its answer reads. `read` is told which page it
 * reads, for a list made of several upstream lists read in turn.
 */
export interface ModelList {
  request(
    target: { channel: Channel; apiKey: string },
    next?: string,
  ): UpstreamRequest | Promise<UpstreamRequest>;
  read(text: string, asked?: AskedPage): ModelListPage;
}

/** A GET of `url` with `headers`, answered in JSON. */
export const listGet = (url: string, headers: Record<string, string>): UpstreamRequest => ({
  url,
  init: { method: "GET", headers: { accept: "application/json", ...headers } },
});

const openAIListSchema = z.looseObject({
  data: listOf(z.looseObject({ id: z.string().min(1) })),
});

/** `GET {base_url}/models` with a bearer key: `{object: "list", data: [{id, owned_by}]}`, one page. */
export const OPENAI_MODEL_LIST: ModelList = {
  request: ({ channel, apiKey }) =>
    listGet(
      `${channel.base_url}/models`,
      apiKey === "" ? {} : { authorization: `Bearer ${apiKey}` },
    ),
  read: (text) => ({
    models: readLenientJson(openAIListSchema, text).data.map(({ id }) => ({ id })),
  }),
};

const anthropicListSchema = z.looseObject({
  data: listOf(z.looseObject({ id: z.string().min(1), display_name: optionalString })),
  has_more: optional(z.boolean()),
  last_id: optionalString,
});

/**
 * `GET /v1/models?limit=1000` with `x-api-key` and the channel's `anthropic-version` (else
 * `defaultVersion`); `has_more` and `last_id` page on.
 */
export function anthropicModelList(defaultVersion: string): ModelList {
  return {
    request: ({ channel, apiKey }, next) => {
      const query = new URLSearchParams({ limit: "1000", ...(next ? { after_id: next } : {}) });
      return listGet(`${channel.base_url}/v1/models?${query}`, {
        "x-api-key": apiKey,
        "anthropic-version": channel.anthropic_version ?? defaultVersion,
      });
    },
    read: (text) => {
      const answer = readLenientJson(anthropicListSchema, text);
      return {
        models: answer.data.map((entry) => ({ id: entry.id, label: entry.display_name })),
        next: answer.has_more ? answer.last_id : undefined,
      };
    },
  };
}

const geminiListSchema = z.looseObject({
  models: listOf(z.looseObject({
    name: z.string().min(1),
    displayName: optionalString,
    supportedGenerationMethods: optional(z.array(z.string())),
  })),
  nextPageToken: optionalString,
});

/**
 * `GET /v1beta/models?pageSize=1000` with `x-goog-api-key`: names come as `models/{id}`; only
 * models that take `generateContent` (what a gemini channel calls) are kept.
 */
export const GEMINI_MODEL_LIST: ModelList = {
  request: ({ channel, apiKey }, next) => {
    const query = new URLSearchParams({ pageSize: "1000", ...(next ? { pageToken: next } : {}) });
    return listGet(`${channel.base_url}/v1beta/models?${query}`, { "x-goog-api-key": apiKey });
  },
  read: (text) => {
    const answer = readLenientJson(geminiListSchema, text);
    return {
      models: answer.models
        .filter((model) => model.supportedGenerationMethods?.includes("generateContent") ?? true)
        .map((model) => ({ id: model.name.replace(/^models\//, ""), label: model.displayName })),
      next: answer.nextPageToken || undefined,
    };
  },
};
