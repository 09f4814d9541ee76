/** Google's model list: `Model`s paged by `pageSize` and `pageToken`. */

import type { CatalogModel } from "../../channels/catalog.ts";
import type { ListQuery } from "../text_interface.ts";

/** Base64 of a string's UTF-8. */
function base64Utf8(text: string): string {
  return new TextEncoder().encode(text).toBase64();
}

/** A catalog entry as a caller's list shows it: with the price that caller pays, when known. */
export type ListedModel = CatalogModel & { caller_price?: string };

/**
 * A model's description with the key groups that may use it, as the specification puts them
 * there ("Image generation and edits. Groups: default, images."), then the price the caller
 * pays. Of the three list shapes only Google's has a description (OpenAI's Model and
 * Anthropic's ModelInfo have none).
 */
function describedWithGroups(
  model: Pick<ListedModel, "description" | "groups" | "caller_price">,
): string {
  const text = model.description.trim();
  const groups = `Groups: ${model.groups.join(", ")}.`;
  const described = text ? `${text}${/[.!?]$/.test(text) ? "" : "."} ${groups}` : groups;
  return model.caller_price ? `${described} ${model.caller_price}` : described;
}

export function geminiModel(model: ListedModel) {
  return {
    name: `models/${model.id}`,
    version: "1",
    displayName: model.display_name ?? model.id,
    description: describedWithGroups(model),
    inputTokenLimit: model.context_window ?? 128_000,
    outputTokenLimit: model.max_output_tokens ?? 8_192,
    supportedGenerationMethods: model.kind === "text" || model.kind === "image"
      ? ["generateContent", "streamGenerateContent", "countTokens"]
      : model.kind === "embedding"
      ? ["embedContent", "batchEmbedContents"]
      : [],
  };
}

/** The model id a Gemini `pageToken` continues after (it is base64 of the last id sent). */
function pageTokenId(query: ListQuery): string | undefined {
  const token = query.value("pageToken") || undefined;
  if (token === undefined) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.fromBase64(token),
    );
  } catch {
    throw query.invalid("pageToken", "is not a page token this API gave");
  }
}

export function geminiModelList(models: CatalogModel[], query: ListQuery) {
  const size = query.integer("pageSize", { min: 1, max: 1000, fallback: 50 });
  const after = pageTokenId(query);
  const start = after === undefined ? 0 : models.findIndex((m) => m.id > after);
  const page = start < 0 ? [] : models.slice(start, start + size);
  const more = start >= 0 && start + size < models.length;
  return {
    models: page.map(geminiModel),
    ...(more ? { nextPageToken: base64Utf8(page[page.length - 1].id) } : {}),
  };
}
