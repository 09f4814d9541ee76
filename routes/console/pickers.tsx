/**
 * Pickers for the operator's filters: a text field tied to a `<datalist>` of names, so the browser
 * offers matches as one types with no script, and the reading of what was typed (a name or an id)
 * as the id the admin filter takes. A name two records share is offered by id.
 */

import type { Gateway } from "../../core/gateway.ts";
import { accountSummaries, keySummaries } from "../../core/console/directory.ts";
import { hasIdShape, invalidQueryParameter, queryValue } from "../params.ts";
import { Field } from "./field.tsx";

export type PickerKind = "key" | "account" | "channel" | "model";

/** Names offered per list at most (the first ones, oldest first). */
export const PICKER_LIMIT = 500;

/** An option: the value typed in, and what the list shows beside it. */
export type Choice = readonly [value: string, label: string];

/** Options by list name: a kind's, or a page's own mix (the audit's targets). */
export type PickerLists = Partial<Record<string, Choice[]>>;

export const pickerListId = (list: string) => `pick-${list}`;

/**
 * `[name, id]` pairs as options: by name, or by id where two share the name or the name would be
 * read as an id (`isId`).
 */
function byName(
  records: Array<{ id: string; name: string }>,
  { label, isId }: { label: (id: string) => string; isId: (name: string) => boolean },
) {
  const count = new Map<string, number>();
  for (const { name } of records) count.set(name, (count.get(name) ?? 0) + 1);
  return records.map(({ id, name }): Choice =>
    count.get(name) === 1 && !isId(name) ? [name, label(id)] : [id, `${name} (${label(id)})`]
  );
}

/** The options of each of `kinds`. */
export async function pickerLists(
  gateway: Gateway,
  kinds: PickerKind[],
): Promise<Partial<Record<PickerKind, Choice[]>>> {
  const lists: Partial<Record<PickerKind, Choice[]>> = {};
  for (const kind of kinds) {
    if (kind === "key") {
      const keys = await keySummaries(gateway.kv, { limit: PICKER_LIMIT });
      const prefixes = new Map(keys.map((key) => [key.id, key.prefix]));
      lists.key = byName(keys, {
        label: (id) => `${id} · ${prefixes.get(id)}…`,
        isId: (name) => hasIdShape(name, "key"),
      });
    } else if (kind === "account") {
      lists.account = byName(await accountSummaries(gateway.kv, { limit: PICKER_LIMIT }), {
        label: (id) => id,
        isId: (name) => hasIdShape(name, "account"),
      });
    } else if (kind === "channel") {
      const channels = gateway.registry.channels;
      const ids = new Set(channels.map((channel) => channel.id));
      lists.channel = byName([...channels], { label: (id) => id, isId: (name) => ids.has(name) });
    } else {
      lists.model = gateway.registry.models.slice(0, PICKER_LIMIT).map((model) => [
        model.id,
        model.kind,
      ]);
    }
  }
  return lists;
}

function optionOf([value, label]: Choice) {
  return <option value={value}>{label}</option>;
}

/**
 * Keys offered by id, each labelled with its name, for a form that posts a key id: typing part of
 * a name finds the key and fills in its id.
 */
export async function keyIdChoices(gateway: Gateway): Promise<Choice[]> {
  const keys = await keySummaries(gateway.kv, { limit: PICKER_LIMIT });
  return keys.map((key) => [key.id, `${key.name} · ${key.prefix}…`]);
}

/** The `<datalist>`s of `lists`, once per page. */
export function Datalists({ lists }: { lists: PickerLists }) {
  return (
    <>
      {Object.entries(lists).map(([list, choices]) => (
        <datalist id={pickerListId(list)}>
          {(choices ?? []).map(optionOf)}
        </datalist>
      ))}
    </>
  );
}

/** A filter field offering the names of `kind` (or of the list `list`) as one types. */
export function PickerField(
  { kind, list, name, label, value, hint }: {
    kind?: PickerKind;
    list?: string;
    name: string;
    label: string;
    value: string;
    hint?: string;
  },
) {
  return (
    <Field
      name={name}
      label={label}
      value={value}
      type="search"
      list={pickerListId(list ?? kind ?? name)}
      hint={hint ?? (kind === "model" ? "a model id" : `a ${kind}'s name or id`)}
    />
  );
}

/** The one id among `matches` named `value`, or a 400 naming the parameter. */
function oneOf(
  param: string,
  { value, matches, what, whats = `${what}s` }: {
    value: string;
    matches: string[];
    what: string;
    whats?: string;
  },
): string {
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) {
    throw invalidQueryParameter(param, `names no ${what}: give a ${what}'s name or id`);
  }
  throw invalidQueryParameter(
    param,
    `'${value.slice(0, 60)}' is the name of ${matches.length} ${whats} (${
      matches.slice(0, 5).join(", ")
    }): give one of their ids`,
  );
}

async function keyIdOf(gateway: Gateway, param: string, value: string): Promise<string> {
  if (hasIdShape(value, "key")) return value;
  const matches = await keySummaries(gateway.kv, {
    limit: 6,
    match: (key) => key.name === value,
  });
  return oneOf(param, { value, matches: matches.map((key) => key.id), what: "key" });
}

async function accountIdOf(gateway: Gateway, param: string, value: string): Promise<string> {
  if (hasIdShape(value, "account")) return value;
  const matches = await accountSummaries(gateway.kv, {
    limit: 6,
    match: (account) => account.name === value,
  });
  return oneOf(param, { value, matches: matches.map((a) => a.id), what: "account" });
}

/**
 * A channel's id: an existing channel's id as given; else the channel of that name; else the
 * value as given (the id of a channel since deleted still filters its history).
 */
function channelIdOf(gateway: Gateway, param: string, value: string): string {
  const channels = gateway.registry.channels;
  if (channels.some((channel) => channel.id === value)) return value;
  const named = channels.filter((channel) => channel.name === value).map((channel) => channel.id);
  if (named.length === 0) return value;
  return oneOf(param, { value, matches: named, what: "channel" });
}

/** Reads one picked value as an id. */
export function pickedId(
  gateway: Gateway,
  { kind, param, value }: { kind: PickerKind; param: string; value: string },
): Promise<string> | string {
  if (kind === "key") return keyIdOf(gateway, param, value);
  if (kind === "account") return accountIdOf(gateway, param, value);
  if (kind === "channel") return channelIdOf(gateway, param, value);
  return value;
}

/**
 * `url` with the values of its picker parameters (`picks`: parameter → kind) read as ids, for
 * the admin filters; a name that names nothing, or several, is a 400 naming the parameter.
 */
export async function withPickedIds(
  gateway: Gateway,
  url: URL,
  picks: Record<string, PickerKind>,
): Promise<URL> {
  const resolved = new URL(url);
  for (const [param, kind] of Object.entries(picks)) {
    const value = queryValue(url, param)?.trim();
    if (!value) continue;
    resolved.searchParams.set(param, await pickedId(gateway, { kind, param, value }));
  }
  return resolved;
}

/**
 * The id of the one key, account or channel named `value`, for a filter of any kind of record;
 * undefined when `value` is an id already or names none of them (it may be any other id); a 400
 * when several share the name.
 */
export async function anyIdNamed(
  gateway: Gateway,
  { param, value }: { param: string; value: string },
): Promise<string | undefined> {
  const channels = gateway.registry.channels;
  if (
    hasIdShape(value, "key") || hasIdShape(value, "account") ||
    channels.some((channel) => channel.id === value)
  ) return undefined;
  const named = (records: Array<{ id: string; name: string }>) =>
    records.filter((record) => record.name === value).map((record) => record.id);
  const matches = [
    ...named(await keySummaries(gateway.kv, { limit: 6, match: (key) => key.name === value })),
    ...named(
      await accountSummaries(gateway.kv, { limit: 6, match: (account) => account.name === value }),
    ),
    ...named([...channels]),
  ];
  if (matches.length === 0) return undefined;
  return oneOf(param, {
    value,
    matches,
    what: "key, account or channel",
    whats: "keys, accounts or channels",
  });
}
