/** Anthropic's model list: `ModelInfo`s paged by `after_id`, `before_id` and `limit`. */

import type { CatalogModel } from "../../channels/catalog.ts";
import type { ListQuery } from "../text_interface.ts";

/**
 * Every field of the Anthropic SDK's `ModelInfo` (none is optional): the limits from the catalog
 * where it has them (a text model's `context_window` and `max_output_tokens`), else null, as the
 * type allows; the gateway knows no capabilities, line or retirement of a model.
 */
export function anthropicModel(model: CatalogModel) {
  const text = model.kind === "text";
  return {
    type: "model",
    id: model.id,
    display_name: model.display_name ?? model.id,
    created_at: model.created_at,
    max_input_tokens: text ? model.context_window ?? null : null,
    max_tokens: text ? model.max_output_tokens ?? null : null,
    capabilities: null,
    lifecycle: "active",
    line: null,
    deprecated_at: null,
    retires_at: null,
  };
}

export function anthropicModelList(models: CatalogModel[], query: ListQuery) {
  const limit = query.integer("limit", { min: 1, max: 1000, fallback: 20 });
  const afterId = query.value("after_id");
  const beforeId = query.value("before_id");
  let list = models;
  if (afterId) list = list.filter((m) => m.id > afterId);
  if (beforeId) list = list.filter((m) => m.id < beforeId).slice(-limit);
  const page = list.slice(0, limit);
  return {
    data: page.map(anthropicModel),
    has_more: list.length > page.length,
    first_id: page[0]?.id ?? null,
    last_id: page[page.length - 1]?.id ?? null,
  };
}
