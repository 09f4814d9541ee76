/**
 * Channels and catalog models, stored in KV and held in memory for routing.
 * Every change bumps one version key; each instance re-reads both lists when it sees the version
 * move (checked every REFRESH_MS), so another instance's change is seen within that bound.
 */

import { GatewayError } from "../errors.ts";
import { timeOrderedId } from "../util/ids.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { kvListOptions, type ListOptions } from "../kv/list_options.ts";
import type { SecretBox } from "./secret_box.ts";
import { changeChannelKeys, type KeyOperations } from "./channel_keys.ts";
import { type KeyHint, keyHint } from "./key_hint.ts";
import {
  type Channel,
  type ChannelInput,
  type channelPatchSchema,
  type ChannelType,
  publicChannel,
  type StoredChannel,
} from "./channel_schema.ts";
import {
  type CatalogModel,
  DEFAULT_CATALOG,
  DISABLED_MODEL_PRICES,
  type ModelInput,
  modelInputSchema,
  type ModelKind,
  type modelPatchSchema,
} from "./catalog.ts";
import { sentFields } from "../util/patch_schema.ts";
import type { AutoDisabled } from "./auto_marks.ts";
import { eligibleChannels } from "./routing.ts";
import { validate } from "../util/validate.ts";
import type { z } from "zod";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvAtomic, KvBackend } from "../kv/kv_backend.ts";

export const REFRESH_MS = 2_000;

/** The key of a channel that has none (routing, breakers and failover count it as one key). */
export const NO_UPSTREAM_KEY = "";

/** Who made a record: the admin API, or the config file (which rewrites it at every boot). */
export type RecordSource = "admin" | "config";

/** What the registry must know of channel types to check a channel (the provider table's). */
export interface ChannelTypeRules {
  /** Whether a channel of `type` can serve models of `kind`. */
  serves(type: ChannelType, kind: ModelKind): boolean;
  /** The kind of model `create_models` makes for a channel of `type`. */
  modelKind(type: ChannelType): ModelKind;
  /** Why `baseUrl` cannot be right for `type`, or undefined. */
  baseUrlProblem(type: ChannelType, baseUrl: string): string | undefined;
  /** Whether a channel of `type` may have no upstream key (a local server that takes none). */
  keyless?(type: ChannelType): boolean;
  /** Why a channel's settings cannot work with its type, naming the field; or undefined. */
  channelProblem?(
    channel: Omit<ChannelInput, "keys">,
  ): { param: string; message: string } | undefined;
  /** What is wrong with `key` as an upstream key of `channel`, in words quoting none of it. */
  keyProblem?(channel: Omit<ChannelInput, "keys">, key: string): string | undefined;
  /** A field a `type` channel needs that `channel` lacks, or undefined. */
  missingField(
    type: ChannelType,
    channel: { project?: string; location?: string },
  ): string | undefined;
}

export interface RegistryOptions {
  rules: ChannelTypeRules;
  /** The config file applied at boot, named when a change to a record it manages is refused. */
  configFile?: string;
}

/** A stored catalog entry, or the mark that a built-in entry was deleted. */
type StoredModel = CatalogModel | { id: string; deleted: true };

/** Channels and models with an in-memory snapshot for the hot path. */
export class Registry {
  #kv: KvBackend;
  #box: SecretBox;
  #options: RegistryOptions;
  #channels: Channel[] = [];
  #models = new Map<string, CatalogModel>();
  #version: Deno.KvEntryMaybe<unknown>["versionstamp"] = null;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(kv: KvBackend, box: SecretBox, options: RegistryOptions) {
    this.#kv = kv;
    this.#box = box;
    this.#options = options;
  }

  /** Loads the snapshot and starts watching for changes made by other instances. */
  async start(): Promise<void> {
    await this.reload();
    this.#timer = setInterval(() => this.#refreshIfChanged().catch(() => {}), REFRESH_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Enabled and disabled channels, keys opened. */
  get channels(): readonly Channel[] {
    return this.#channels;
  }

  /** Channels by the models they list, built once per snapshot (routing reads only its model's). */
  #byModel?: { of: readonly Channel[]; index: Map<string, Channel[]> };

  /** The channels (enabled or not) that list `model`, in snapshot order. */
  channelsOf(model: string): readonly Channel[] {
    if (this.#byModel?.of !== this.#channels) {
      const index = new Map<string, Channel[]>();
      for (const channel of this.#channels) {
        for (const id of new Set(channel.models)) {
          const listed = index.get(id);
          if (listed) listed.push(channel);
          else index.set(id, [channel]);
        }
      }
      this.#byModel = { of: this.#channels, index };
    }
    return this.#byModel.index.get(model) ?? [];
  }

  /** An enabled catalog entry by public id, built-in defaults included; disabled ones are absent. */
  model(id: string): CatalogModel | undefined {
    const model = this.#models.get(id);
    return model?.enabled === false ? undefined : model;
  }

  /** Every catalog entry, disabled ones included. */
  get models(): CatalogModel[] {
    return [...this.#models.values()];
  }

  async reload(): Promise<void> {
    const version = await this.#kv.get(kvKeys.catalogVersion());
    const marks = new Map<string, AutoDisabled>();
    const markEntries = this.#kv.list<AutoDisabled>({ prefix: kvKeys.channelsAutoDisabled() });
    for await (const entry of markEntries) marks.set(String(entry.key.at(-1)), entry.value);
    const channels: Channel[] = [];
    for await (const entry of this.#kv.list<StoredChannel>({ prefix: kvKeys.channels() })) {
      channels.push(await this.#opened(entry.value, marks.get(entry.value.id) ?? null));
    }
    const models = new Map(DEFAULT_CATALOG.map((model) => [model.id, model]));
    for await (const entry of this.#kv.list<StoredModel>({ prefix: kvKeys.models() })) {
      if ("deleted" in entry.value) models.delete(entry.value.id);
      else models.set(entry.value.id, { ...entry.value, enabled: entry.value.enabled ?? true });
    }
    this.#channels = channels;
    this.#models = models;
    this.#version = version.versionstamp;
  }

  async #refreshIfChanged(): Promise<void> {
    const version = await this.#kv.get(kvKeys.catalogVersion());
    if (version.versionstamp !== this.#version) await this.reload();
  }

  async #commit(atomic: KvAtomic): Promise<void> {
    atomic.set(kvKeys.catalogVersion(), Date.now());
    const result = await withKvRetry(() => atomic.commit());
    if (!result.ok) throw new GatewayError("conflict", 409, "The record changed meanwhile; retry");
    await withKvRetry(() => this.reload());
  }

  /** Refuses an admin change to a record the config file rewrites at every boot. */
  #refuseIfManaged(record: { id: string; source: string }, what: string, action: string): void {
    if (record.source !== "config") return;
    const file = this.#options.configFile ?? "the config file";
    throw new GatewayError(
      "managed_by_config",
      409,
      `Cannot ${action} ${what} '${record.id}': it is managed by ${file}, which rewrites it at ` +
        `every boot; change it there and restart`,
    );
  }

  /**
   * Checks what can be known about a channel before any request: its base URL's shape and that
   * the catalog has its models. With `createModels`, missing models are created disabled at
   * price 0, so nobody is served free before the operator prices and enables them.
   */
  #checkChannel(
    channel: Omit<ChannelInput, "keys">,
    newModels: readonly string[],
    createModels: boolean,
  ): CatalogModel[] {
    const { rules } = this.#options;
    const problem = rules.baseUrlProblem(channel.type, channel.base_url);
    if (problem) {
      throw new GatewayError("invalid_base_url", 400, problem, { param: "base_url" });
    }
    const settings = rules.channelProblem?.(channel);
    if (settings) {
      throw new GatewayError("invalid_request", 400, settings.message, { param: settings.param });
    }
    const missing = rules.missingField(channel.type, channel);
    if (missing) {
      throw new GatewayError(
        "missing_channel_field",
        400,
        `A ${channel.type} channel needs '${missing}'`,
        { param: missing },
      );
    }
    const absent = newModels.filter((id) => !this.#models.has(id));
    if (absent.length === 0) return [];
    if (!createModels) {
      throw new GatewayError(
        "model_not_in_catalog",
        400,
        `The catalog has no model ${absent.map((id) => `'${id}'`).join(", ")}; add it with ` +
          `PUT /admin/models/{id} first, or send "create_models": true. Catalog models: ` +
          [...this.#models.keys()].sort().join(", "),
        { param: "models" },
      );
    }
    const kind = this.#options.rules.modelKind(channel.type);
    const now = new Date().toISOString();
    return absent.map((id) => ({
      id,
      kind,
      groups: ["default"],
      price: DISABLED_MODEL_PRICES[kind],
      description: "",
      enabled: false,
      source: "admin",
      created_at: now,
    }));
  }

  /** Refuses a new upstream key of a form `channel`'s type cannot use (never quoting it). */
  #checkKeys(channel: Omit<ChannelInput, "keys">, keys: readonly string[], param: string): void {
    keys.forEach((key, index) => {
      const problem = this.#options.rules.keyProblem?.(channel, key);
      if (!problem) return;
      throw new GatewayError(
        "invalid_upstream_key",
        400,
        `Upstream key ${index + 1} of this ${channel.type} channel ${problem}`,
        { param },
      );
    });
  }

  /** Refuses a channel without keys unless its type may have none. */
  #checkKeyCount(type: ChannelType, count: number, param: string): void {
    if (count > 0 || this.#options.rules.keyless?.(type)) return;
    throw new GatewayError(
      "invalid_request",
      400,
      `A ${type} channel needs at least one upstream key; only channels of OpenAI-compatible ` +
        `types may have none (a local server such as Ollama or vLLM that takes no key)`,
      { param },
    );
  }

  // --- channels ---

  /**
   * Creates (or, for the config file, rewrites) a channel. Returns it with the catalog entries
   * that `createModels` made, which are disabled until priced.
   */
  async createChannel(
    input: ChannelInput,
    options: { id?: string; source?: RecordSource; createModels?: boolean } = {},
  ) {
    const created = this.#checkChannel(input, input.models, options.createModels ?? false);
    this.#checkKeyCount(input.type, input.keys.length, "keys");
    this.#checkKeys(input, input.keys, "keys");
    const now = new Date().toISOString();
    const id = options.id ?? timeOrderedId("ch");
    const existing = await this.#kv.get<StoredChannel>(kvKeys.channel(id));
    const { keys, ...rest } = input;
    const stored: StoredChannel = {
      ...rest,
      id,
      sealed_keys: await Promise.all(keys.map((key) => this.#box.seal(key))),
      source: options.source ?? "admin",
      created_at: existing.value?.created_at ?? now,
      updated_at: now,
    };
    const atomic = this.#kv.atomic().set(kvKeys.channel(id), stored);
    for (const model of created) atomic.set(kvKeys.model(model.id), model);
    await this.#commit(atomic);
    return created.length
      ? { ...(await this.channelView(stored)), created_models: created.map((model) => model.id) }
      : await this.channelView(stored);
  }

  /**
   * The admin view of a stored channel (keys by their hints, never themselves), with what the
   * gateway disabled on its own (`auto_disabled`: null, or the channel's and its keys' marks).
   */
  async channelView(channel: StoredChannel) {
    return {
      ...publicChannel(channel, await this.#hintsOf(channel)),
      auto_disabled: await this.#marksOf(channel.id),
    };
  }

  /**
   * The hints of a channel's keys, made from the opened keys when asked for, so that no part of
   * an upstream key is ever stored in clear.
   */
  async #hintsOf(channel: StoredChannel): Promise<KeyHint[]> {
    const keys = await Promise.all(channel.sealed_keys.map((key) => this.#box.open(key)));
    return await Promise.all(keys.map(keyHint));
  }

  async getChannel(id: string): Promise<StoredChannel> {
    const entry = await this.#kv.get<StoredChannel>(kvKeys.channel(id));
    if (!entry.value) {
      throw new GatewayError("channel_not_found", 404, `No channel has the id '${id}'`);
    }
    return entry.value;
  }

  /** `stored` with its keys opened and fingerprinted, and the gateway's marks on it. */
  async #opened(stored: StoredChannel, marks: AutoDisabled | null): Promise<Channel> {
    const { sealed_keys, ...rest } = stored;
    const opened = await Promise.all(sealed_keys.map((key) => this.#box.open(key)));
    // A channel without keys is called with one empty key: no auth header is sent.
    const keys = opened.length ? opened : [NO_UPSTREAM_KEY];
    const hints = await Promise.all(keys.map(keyHint));
    return {
      ...rest,
      keys,
      fingerprints: new Map(keys.map((key, index) => [key, hints[index].fingerprint])),
      auto_disabled: marks,
    };
  }

  /** The gateway's marks on a channel, read from KV (null: none). */
  async #marksOf(id: string): Promise<AutoDisabled | null> {
    return (await this.#kv.get<AutoDisabled>(kvKeys.channelAutoDisabled(id))).value;
  }

  /** A channel with its keys opened, enabled or not, as routing sees it; 404 when none. */
  async openChannel(id: string): Promise<Channel> {
    const stored = await this.getChannel(id);
    return await this.#opened(stored, await this.#marksOf(stored.id));
  }

  /** Channels, newest first unless `options.order` is `asc`. */
  async listChannels(options: ListOptions) {
    const { limit } = options;
    const iterator = this.#kv.list<StoredChannel>(
      { prefix: kvKeys.channels() },
      kvListOptions(options),
    );
    const data = [];
    for await (const entry of iterator) data.push(await this.channelView(entry.value));
    return { data, cursor: data.length === limit ? iterator.cursor : null };
  }

  /**
   * Changes exactly the fields in `patch`; the merged channel is checked like a new one. Upstream
   * keys are replaced whole (`keys`) or changed one by one (`keyOperations`; see channel_keys.ts).
   */
  async updateChannel(
    id: string,
    patch: z.infer<typeof channelPatchSchema>,
    options: { createModels?: boolean; keyOperations?: Omit<KeyOperations, "keys"> } = {},
  ) {
    const entry = await this.#kv.get<StoredChannel>(kvKeys.channel(id));
    if (!entry.value) {
      throw new GatewayError("channel_not_found", 404, `No channel has the id '${id}'`);
    }
    this.#refuseIfManaged(entry.value, "channel", "change");
    const { keys, ...rest } = sentFields(patch);
    const merged = { ...entry.value, ...rest };
    const added = (rest.models ?? []).filter((model) => !entry.value!.models.includes(model));
    const created = this.#checkChannel(merged, added, options.createModels ?? false);
    this.#checkKeys(merged, keys ?? [], "keys");
    this.#checkKeys(merged, options.keyOperations?.add_keys ?? [], "add_keys");
    const sealed = await changeChannelKeys(
      { sealed: entry.value.sealed_keys, hints: await this.#hintsOf(entry.value) },
      { ...options.keyOperations, keys, channelId: id, seal: (key) => this.#box.seal(key) },
    );
    this.#checkKeyCount(merged.type, sealed.sealed.length, keys ? "keys" : "remove_keys");
    const updated: StoredChannel = {
      ...merged,
      sealed_keys: sealed.sealed,
      updated_at: new Date().toISOString(),
    };
    const atomic = this.#kv.atomic().check(entry).set(kvKeys.channel(id), updated);
    for (const model of created) atomic.set(kvKeys.model(model.id), model);
    await this.#commit(atomic);
    return created.length
      ? { ...(await this.channelView(updated)), created_models: created.map((model) => model.id) }
      : await this.channelView(updated);
  }

  async deleteChannel(id: string): Promise<void> {
    const channel = await this.getChannel(id);
    this.#refuseIfManaged(channel, "channel", "delete");
    await this.#commit(this.#kv.atomic().delete(kvKeys.channel(id)));
  }

  // --- models ---

  /** Writes a catalog entry whole (PUT). The config file writes with source `config`. */
  async putModel(id: string, input: ModelInput, source: RecordSource = "admin") {
    const existing = this.#models.get(id);
    if (existing && source === "admin") this.#refuseIfManaged(existing, "model", "replace");
    const model: CatalogModel = {
      id,
      ...input,
      source,
      created_at: existing && existing.source !== "default"
        ? existing.created_at
        : new Date().toISOString(),
    };
    await this.#commit(this.#kv.atomic().set(kvKeys.model(id), model));
    return model;
  }

  /** Changes exactly the fields in `patch`; the merged entry is checked whole. */
  async patchModel(id: string, patch: z.infer<typeof modelPatchSchema>) {
    const existing = this.getModel(id);
    this.#refuseIfManaged(existing, "model", "change");
    const { id: _id, source: _source, created_at, ...fields } = existing;
    const merged = validate(modelInputSchema, { ...fields, ...sentFields(patch) });
    const model: CatalogModel = { id, ...merged, source: "admin", created_at };
    await this.#commit(this.#kv.atomic().set(kvKeys.model(id), model));
    return model;
  }

  /**
   * Deletes a catalog entry (a built-in one stays deleted). Refused while a channel serves the
   * model: remove it from those channels first, or disable the model instead.
   */
  async deleteModel(id: string): Promise<void> {
    const existing = this.getModel(id);
    this.#refuseIfManaged(existing, "model", "delete");
    const users = this.#channels.filter((channel) => channel.models.includes(id));
    if (users.length) {
      throw new GatewayError(
        "model_in_use",
        409,
        `Cannot delete model '${id}': channel ${
          users.map((channel) => `'${channel.id}'`).join(", ")
        } serve it; remove it from their models, or PATCH the model with {"enabled": false}`,
      );
    }
    const isBuiltIn = DEFAULT_CATALOG.some((model) => model.id === id);
    await this.#commit(
      isBuiltIn
        ? this.#kv.atomic().set(kvKeys.model(id), { id, deleted: true })
        : this.#kv.atomic().delete(kvKeys.model(id)),
    );
  }

  /** A catalog entry, enabled or not, or 404. */
  getModel(id: string): CatalogModel {
    const model = this.#models.get(id);
    if (!model) {
      throw new GatewayError("model_not_found", 404, `No catalog entry has the id '${id}'`);
    }
    return model;
  }

  /** Whether `channel`'s type can serve models of `kind`. */
  servesKind(channel: Channel, kind: ModelKind): boolean {
    return this.#options.rules.serves(channel.type, kind);
  }

  /** Whether a channel routing may use (enabled, not disabled by the gateway) serves `model` to `group`. */
  servesModel(model: string, group: string): boolean {
    return eligibleChannels(this.#channels, { model, group }).length > 0;
  }
}
