/**
 * "Fetch models" (`GET /admin/channels/{id}/upstream-models` and the console's): reads a channel's upstream model list with one of the channel's keys, through
 * the same upstream call as serving (the channel's timeout, redirects refused, error text read
 * bounded with the keys removed). Not counted in the channel's health: it serves nobody.
 */

import type { Channel } from "../../core/channels/channel_schema.ts";
import { pickUpstreamKeyIndex } from "../../core/channels/routing.ts";
import { providerOf } from "../../core/providers/provider_table.ts";
import type { UpstreamModel } from "../../core/providers/model_list.ts";
import { redactSecrets } from "../../core/util/redact.ts";
import { callUpstream } from "../../core/upstream/call.ts";

/** The most pages followed (a page is up to 1000 models where the upstream pages at all). */
const MAX_PAGES = 20;
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** What a fetch found: the models, or why there are none. */
export type UpstreamModelsResult =
  | { ok: true; models: UpstreamModel[] }
  | { ok: false; error: string; status?: number };

/** "An ark-video", "A gateway-video": the type with its article. */
export function articled(type: string): string {
  return `${/^[aeiou]/i.test(type) ? "An" : "A"} ${type}`;
}

/** Whether `channel`'s type has a model list to read. */
export function hasModelList(channel: Pick<Channel, "type">): boolean {
  return providerOf(channel).modelList !== undefined;
}

/** Reads `channel`'s upstream model list, every page, each id once, in the upstream's order. */
export async function fetchUpstreamModels(
  channel: Channel,
  { signal }: { signal: AbortSignal },
): Promise<UpstreamModelsResult> {
  const provider = providerOf(channel);
  const list = provider.modelList;
  if (!list) {
    return { ok: false, error: `${articled(channel.type)} upstream has no model list to read` };
  }
  const apiKey = channel.keys[pickUpstreamKeyIndex(channel)];
  const found = new Map<string, UpstreamModel>();
  let next: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const text = await callUpstream(channel, list.request({ channel, apiKey }, next), {
        signal,
        errors: provider.errors,
        maxBytes: MAX_PAGE_BYTES,
      });
      const read = list.read(text, { channel, next });
      for (const model of read.models) if (!found.has(model.id)) found.set(model.id, model);
      if (!read.next || read.next === next) break;
      next = read.next;
    }
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    return {
      ok: false,
      error: redactSecrets(error instanceof Error ? error.message : String(error), channel.keys),
      ...(typeof status === "number" ? { status } : {}),
    };
  }
  return { ok: true, models: [...found.values()] };
}
