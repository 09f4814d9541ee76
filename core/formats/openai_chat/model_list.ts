/** OpenAI's model list (`{object: "list", data: [Model]}`), shared by every OpenAI format. */

import type { CatalogModel } from "../../channels/catalog.ts";

const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export function openAIModel(model: CatalogModel) {
  return {
    id: model.id,
    object: "model",
    created: unixSeconds(model.created_at),
    owned_by: "gateway",
  };
}

export function openAIModelList(models: CatalogModel[]) {
  return { object: "list", data: models.map(openAIModel) };
}
