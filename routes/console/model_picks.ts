/**
 * The rows of a channel's "Fetch models" form and what they save: each upstream model (and each
 * model the channel serves that the upstream did not list) with whether the channel serves it
 * and under which public name. Pure.
 */

import type { UpstreamModel } from "../../core/providers/model_list.ts";

export interface ModelPick {
  upstream: string;
  /** The catalog id callers use; the upstream name unless the channel maps another to it. */
  public: string;
  label?: string;
  served: boolean;
  /** Whether the upstream's list has it (a served model it lacks is kept, marked). */
  listed: boolean;
}

/** The rows for `channel` given the upstream's list: its served models first, then the rest. */
export function modelPicks(
  channel: { models: string[]; model_map: Record<string, string> },
  listed: readonly UpstreamModel[],
): ModelPick[] {
  const upstreamOf = (name: string) => channel.model_map[name] ?? name;
  const byUpstream = new Map(listed.map((model) => [model.id, model]));
  const served: ModelPick[] = [...new Set(channel.models)].map((name) => ({
    upstream: upstreamOf(name),
    public: name,
    label: byUpstream.get(upstreamOf(name))?.label,
    served: true,
    listed: byUpstream.has(upstreamOf(name)),
  }));
  const taken = new Set(served.map((pick) => pick.upstream));
  const rest = listed.filter((model) => !taken.has(model.id)).map((model) => ({
    upstream: model.id,
    public: model.id,
    label: model.label,
    served: false,
    listed: true,
  }));
  return [...served, ...rest];
}

/** The rows as posted: `upstream.N`, `public.N`, `listed.N` and a `serve` box valued N. */
export function postedPicks(fields: Record<string, string>, serve: readonly string[]): ModelPick[] {
  const picks: ModelPick[] = [];
  for (let index = 0; `upstream.${index}` in fields; index++) {
    const upstream = fields[`upstream.${index}`].trim();
    picks.push({
      upstream,
      public: (fields[`public.${index}`] ?? "").trim() || upstream,
      served: serve.includes(String(index)),
      listed: fields[`listed.${index}`] === "1",
    });
  }
  return picks;
}

/** What the served rows save: the channel's models and its model map (replacing both). */
export function savedModels(picks: readonly ModelPick[]) {
  const models: string[] = [];
  const model_map: Record<string, string> = {};
  for (const pick of picks) {
    if (!pick.served || models.includes(pick.public)) continue;
    models.push(pick.public);
    if (pick.public !== pick.upstream) model_map[pick.public] = pick.upstream;
  }
  return { models, model_map };
}
