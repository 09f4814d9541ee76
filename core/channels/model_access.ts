/** Decides whether a key may use a model, and which channels may serve it. */

import { type CatalogModel, keyMayUseModel } from "./catalog.ts";
import type { Channel } from "./channel_schema.ts";
import { GatewayError } from "../errors.ts";
import type { Registry } from "./registry.ts";
import type { KeyRecord } from "../keys/key_schema.ts";
import { eligibleChannels, planChannelOrder } from "./routing.ts";

const INTERFACE_BY_KIND = {
  text: "/v1/chat/completions",
  image: "/v1/images/generations",
  video: "/v1/video/generations",
  rerank: "/v1/rerank",
  moderation: "/v1/moderations",
  audio: "/v1/audio/transcriptions (or /v1/audio/translations, /v1/audio/speech)",
  embedding: "/v1/embeddings",
};

/** The path a model of `kind` is called at. */
export function interfaceOfKind(kind: CatalogModel["kind"]): string {
  return INTERFACE_BY_KIND[kind];
}

/**
 * The enabled catalog entry `modelId` names, if `key` may use it: else a 404 (unknown or
 * disabled) or a 403 (not in the key's group or model list).
 */
export function modelForKey(
  registry: Registry,
  { key, model: modelId }: { key: KeyRecord; model: string },
): CatalogModel {
  const model = registry.model(modelId);
  if (!model) {
    throw new GatewayError(
      "model_not_found",
      404,
      `The model '${modelId}' does not exist; GET /v1/models lists the models of this key`,
      {
        param: "model",
      },
    );
  }
  if (!keyMayUseModel(key, model)) {
    throw new GatewayError(
      "model_not_allowed",
      403,
      `The model '${modelId}' is not allowed for this key (group '${key.group}')`,
      { param: "model" },
    );
  }
  return model;
}

/** The catalog entry and the ordered channels for `modelId`, or the error that says why not. */
export function resolveModel(
  registry: Registry,
  request: { key: KeyRecord; model: string; kind: CatalogModel["kind"] },
): { model: CatalogModel; order: Channel[] } {
  const { key, kind } = request;
  const modelId = request.model;
  const model = modelForKey(registry, { key, model: modelId });
  if (model.kind !== kind) {
    throw new GatewayError(
      "wrong_model_kind",
      400,
      `The model '${modelId}' is ${
        model.kind === "image" || model.kind === "audio" || model.kind === "embedding" ? "an" : "a"
      } ${model.kind} model; use ${INTERFACE_BY_KIND[model.kind]}`,
      { param: "model" },
    );
  }
  const channels = eligibleChannels(registry.channelsOf(modelId), {
    model: modelId,
    group: key.group,
  })
    .filter((channel) => registry.servesKind(channel, kind));
  if (channels.length === 0) {
    throw new GatewayError(
      "no_available_channel",
      503,
      `No enabled channel serves the model '${modelId}' for group '${key.group}'`,
      { retryable: false },
    );
  }
  return { model, order: planChannelOrder(channels) };
}
