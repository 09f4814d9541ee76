/**
 * Channels and catalog models, stored in KV and held in memory for routing.
 * Every change bumps one version key; each instance re-reads both lists when it sees the version
 * move (checked every REFRESH_MS), so another instance's change is seen within that bound.
 */

import { GatewayError } from "./errors.ts";
import { timeOrderedId } from "./ids.ts";
import { kvKeys } from "./kv_keys.ts";
import type { SecretBox } from "./secret_box.ts";
import {
  type Channel,
  type ChannelInput,
  channelPatchSchema,
  publicChannel,
  type StoredChannel,
} from "./channel_schema.ts";
import { type CatalogModel, DEFAULT_CATALOG, type ModelInput } from "./catalog.ts";
import type { z } from "zod";

export const REFRESH_MS = 2_000;

/** Channels and models with an in-memory snapshot for the hot path. */
export class Registry {
  #kv: Deno.Kv;
  #box: SecretBox;
  #channels: Channel[] = [];
  #models = new Map<string, CatalogModel>();
  #version: Deno.KvEntryMaybe<unknown>["versionstamp"] = null;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(kv: Deno.Kv, box: SecretBox) {
    this.#kv = kv;
    this.#box = box;
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

  /** A catalog entry by public id, built-in defaults included. */
  model(id: string): CatalogModel | undefined {
    return this.#models.get(id);
  }

  /** Every catalog entry. */
  get models(): CatalogModel[] {
    return [...this.#models.values()];
  }

  async reload(): Promise<void> {
    const version = await this.#kv.get(kvKeys.catalogVersion());
    const channels: Channel[] = [];
    for await (const entry of this.#kv.list<StoredChannel>({ prefix: kvKeys.channels() })) {
      const { sealed_keys, ...rest } = entry.value;
      channels.push({
        ...rest,
        keys: await Promise.all(sealed_keys.map((k) => this.#box.open(k))),
      });
    }
    const models = new Map(DEFAULT_CATALOG.map((model) => [model.id, model]));
    for await (const entry of this.#kv.list<CatalogModel>({ prefix: kvKeys.models() })) {
      models.set(entry.value.id, entry.value);
    }
    this.#channels = channels;
    this.#models = models;
    this.#version = version.versionstamp;
  }

  async #refreshIfChanged(): Promise<void> {
    const version = await this.#kv.get(kvKeys.catalogVersion());
    if (version.versionstamp !== this.#version) await this.reload();
  }

  async #commit(atomic: Deno.AtomicOperation): Promise<void> {
    atomic.set(kvKeys.catalogVersion(), Date.now());
    const result = await atomic.commit();
    if (!result.ok) throw new GatewayError("conflict", 409, "The record changed meanwhile; retry");
    await this.reload();
  }

  // --- channels ---

  async createChannel(
    input: ChannelInput,
    options: { id?: string; source?: "admin" | "config" } = {},
  ) {
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
    await this.#commit(this.#kv.atomic().set(kvKeys.channel(id), stored));
    return publicChannel(stored);
  }

  async getChannel(id: string): Promise<StoredChannel> {
    const entry = await this.#kv.get<StoredChannel>(kvKeys.channel(id));
    if (!entry.value) {
      throw new GatewayError("channel_not_found", 404, `No channel has the id '${id}'`);
    }
    return entry.value;
  }

  async listChannels(cursor: string | undefined, limit: number) {
    const iterator = this.#kv.list<StoredChannel>({ prefix: kvKeys.channels() }, { cursor, limit });
    const data = [];
    for await (const entry of iterator) data.push(publicChannel(entry.value));
    return { data, cursor: data.length === limit ? iterator.cursor : null };
  }

  async updateChannel(id: string, patch: z.infer<typeof channelPatchSchema>) {
    const entry = await this.#kv.get<StoredChannel>(kvKeys.channel(id));
    if (!entry.value) {
      throw new GatewayError("channel_not_found", 404, `No channel has the id '${id}'`);
    }
    const { keys, ...rest } = patch;
    const definedRest = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    const updated: StoredChannel = {
      ...entry.value,
      ...definedRest,
      sealed_keys: keys
        ? await Promise.all(keys.map((key) => this.#box.seal(key)))
        : entry.value.sealed_keys,
      updated_at: new Date().toISOString(),
    };
    await this.#commit(
      this.#kv.atomic().check(entry).set(kvKeys.channel(id), updated),
    );
    return publicChannel(updated);
  }

  async deleteChannel(id: string): Promise<void> {
    await this.getChannel(id);
    await this.#commit(this.#kv.atomic().delete(kvKeys.channel(id)));
  }

  // --- models ---

  async putModel(id: string, input: ModelInput, source: "admin" | "config" = "admin") {
    const existing = this.#models.get(id);
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

  getModel(id: string): CatalogModel {
    const model = this.#models.get(id);
    if (!model) {
      throw new GatewayError("model_not_found", 404, `No catalog entry has the id '${id}'`);
    }
    return model;
  }

  /** Enabled channels serving `model` to `group`. */
  servesModel(model: string, group: string): boolean {
    return this.#channels.some((channel) =>
      channel.enabled && channel.models.includes(model) && channel.groups.includes(group)
    );
  }
}
