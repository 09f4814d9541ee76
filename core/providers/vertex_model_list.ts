/**
 * A `vertex` channel's model list: Model Garden's publisher models,
 * `GET {origin}/v1beta1/publishers/{publisher}/models` (`publishers.models.list`, paged by
 * `pageSize` and `pageToken`; `{publisherModels: [{name: "publishers/google/models/…"}],
 * nextPageToken}`), with the channel's bearer token (vertex_auth.ts) and at the origin its calls
 * go to (vertex_endpoint.ts).
 *
 * Which lists: the channel's `vertex_publisher`'s; unset, Google's then Anthropic's, as such a
 * channel serves both. Kept are the models the channel's calls can serve: Google's Gemini models
 * (`gemini-*`, what generateContent runs, gemini-embedding too) and text embedding models
 * (`text-embedding-*`, `text-multilingual-embedding-*`, through :predict; Imagen, Veo and the
 * rest are left out) and
 * Anthropic's Claude models (all of Anthropic's when the channel's publisher is `anthropic`; unset,
 * the `claude-*` ones its calls route to Anthropic). Ids lose `publishers/{p}/models/`: the name a
 * call takes.
 *
 * A page token is `{publisher}:{Google's token}`, so the list goes on to the next publisher.
 */

import { z } from "zod";
import type { Channel } from "../channels/channel_schema.ts";
import { listOf, optionalString, readLenientJson } from "../util/lenient_schema.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import type { ModelList, ModelListPage } from "./model_list.ts";
import { vertexAccessToken } from "./vertex_auth.ts";
import { vertexOrigin } from "./vertex_endpoint.ts";

type Publisher = "google" | "anthropic";

/** The largest page asked for. */
export const VERTEX_LIST_PAGE_SIZE = 100;

/** The publishers whose lists `channel` reads, in order. */
export function vertexListedPublishers(channel: Pick<Channel, "vertex_publisher">): Publisher[] {
  return channel.vertex_publisher ? [channel.vertex_publisher] : ["google", "anthropic"];
}

/** The publisher and Google's page token of `next` (undefined: the channel's first publisher). */
function pageOf(
  channel: Pick<Channel, "vertex_publisher">,
  next: string | undefined,
): { publisher: Publisher; token: string } {
  const [first] = vertexListedPublishers(channel);
  if (next === undefined) return { publisher: first, token: "" };
  const colon = next.indexOf(":");
  const publisher = next.slice(0, colon);
  return {
    publisher: publisher === "google" || publisher === "anthropic" ? publisher : first,
    token: next.slice(colon + 1),
  };
}

/** Whether a model of `publisher` named `id` is one `channel`'s calls can serve. */
function serves(channel: Pick<Channel, "vertex_publisher">, publisher: Publisher, id: string) {
  if (publisher === "google") return /^(gemini-|text-(multilingual-)?embedding-)/i.test(id);
  return channel.vertex_publisher === "anthropic" || /^claude-/i.test(id);
}

const publisherModelsSchema = z.looseObject({
  publisherModels: listOf(z.looseObject({ name: z.string().min(1) })),
  nextPageToken: optionalString,
});

async function vertexListRequest(
  { channel, apiKey }: { channel: Channel; apiKey: string },
  next?: string,
): Promise<UpstreamRequest> {
  const { publisher, token } = pageOf(channel, next);
  const query = new URLSearchParams({
    pageSize: String(VERTEX_LIST_PAGE_SIZE),
    ...(token ? { pageToken: token } : {}),
  });
  const access = await vertexAccessToken(apiKey);
  return {
    url: `${vertexOrigin(channel)}/v1beta1/publishers/${publisher}/models?${query}`,
    init: {
      method: "GET",
      headers: { accept: "application/json", authorization: `Bearer ${access.token}` },
    },
    onRefused: access.forget,
  };
}

/**
 * One page of a publisher's list, asked with `next` for `channel`: the models the channel
 * serves, and what to ask next.
 */
export function readVertexModels(
  text: string,
  { channel, next }: { channel: Pick<Channel, "vertex_publisher">; next?: string },
): ModelListPage {
  const { publisher } = pageOf(channel, next);
  const answer = readLenientJson(publisherModelsSchema, text);
  const prefix = `publishers/${publisher}/models/`;
  const models = answer.publisherModels
    .filter(({ name }) => name.startsWith(prefix))
    .map(({ name }) => ({ id: name.slice(prefix.length) }))
    .filter(({ id }) => id !== "" && serves(channel, publisher, id));
  if (answer.nextPageToken) return { models, next: `${publisher}:${answer.nextPageToken}` };
  const publishers = vertexListedPublishers(channel);
  const following = publishers[publishers.indexOf(publisher) + 1];
  return { models, next: following ? `${following}:` : undefined };
}

export const VERTEX_MODEL_LIST: ModelList = {
  request: vertexListRequest,
  read: (text, asked) => readVertexModels(text, asked ?? { channel: {} }),
};
