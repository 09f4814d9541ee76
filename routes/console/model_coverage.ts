/**
 * Which channels serve a catalog model, and whether an enabled model is served at all: by an
 * enabled channel routing may use (core/channels/routing.ts) for at least one of its groups. Pure.
 */

import type { CatalogModel } from "../../core/channels/catalog.ts";
import type { Channel } from "../../core/channels/channel_schema.ts";
import { eligibleChannels } from "../../core/channels/routing.ts";

export interface ModelCoverage {
  /** Every channel that lists the model, enabled or not. */
  listedBy: readonly Channel[];
  /** An enabled model that no enabled channel serves to any of its groups. */
  uncovered: boolean;
}

export function coverageOf(
  model: Pick<CatalogModel, "id" | "groups" | "enabled">,
  channels: readonly Channel[],
): ModelCoverage {
  const listedBy = channels.filter((channel) => channel.models.includes(model.id));
  const served = model.groups.some((group) =>
    eligibleChannels(listedBy, { model: model.id, group }).length > 0
  );
  return { listedBy, uncovered: model.enabled && !served };
}

/** The enabled models of `models` that no enabled channel serves. */
export function uncoveredModels<M extends Pick<CatalogModel, "id" | "groups" | "enabled">>(
  models: readonly M[],
  channels: readonly Channel[],
): M[] {
  return models.filter((model) => coverageOf(model, channels).uncovered);
}
