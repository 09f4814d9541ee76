/**
 * Group records (price tiers) in KV, with an in-memory snapshot for the hot path: pricing reads
 * `tierOf(group)`, a map lookup. Every change bumps a version key; each instance checks it every
 * REFRESH_MS and reloads when it moved, so a change made on another instance is priced within
 * that bound (at once on the instance that made it). A group without a record is ×1.
 */

import { GatewayError } from "../errors.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";
import { BASE_MULTIPLIER, type PriceTier } from "../billing/price_tier.ts";
import { GROUP_NAME, type GroupInput, type GroupRecord, multiplierOf } from "./group_schema.ts";

/** How often an instance looks for group changes made elsewhere. */
export const REFRESH_MS = 2_000;

export const groupNotFound = (name: string) =>
  new GatewayError("group_not_found", 404, `No group record has the name '${name}'`);

/** A group name from a path, or 400 naming it. */
export function checkGroupName(name: string): string {
  if (!GROUP_NAME.test(name)) {
    throw new GatewayError(
      "invalid_request",
      400,
      "The path parameter 'name' must be a group name of 1-100 characters without spaces, " +
        "slashes, '?', '#' or '%'",
      { param: "name" },
    );
  }
  return name;
}

export class GroupStore {
  readonly #kv: KvBackend;
  #records = new Map<string, GroupRecord>();
  #tiers = new Map<string, PriceTier>();
  #version: string | null = null;
  #timer?: ReturnType<typeof setInterval>;

  constructor(kv: KvBackend) {
    this.#kv = kv;
  }

  /** Loads the snapshot and starts watching for changes made by other instances. */
  async start(): Promise<void> {
    await this.reload();
    this.#timer = setInterval(() => this.#refreshIfChanged().catch(() => {}), REFRESH_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async reload(): Promise<void> {
    const version = await this.#kv.get(kvKeys.groupsVersion());
    const records = new Map<string, GroupRecord>();
    for await (const entry of this.#kv.list<GroupRecord>({ prefix: kvKeys.groups() })) {
      records.set(entry.value.name, entry.value);
    }
    this.#records = records;
    this.#tiers = new Map(
      [...records.values()].map((record) => [
        record.name,
        { group: record.name, multiplier: multiplierOf(record) },
      ]),
    );
    this.#version = version.versionstamp;
  }

  async #refreshIfChanged(): Promise<void> {
    const version = await this.#kv.get(kvKeys.groupsVersion());
    if (version.versionstamp !== this.#version) await this.reload();
  }

  /** The price tier of `group` as of the snapshot: its record's multiplier, else ×1. */
  tierOf(group: string): PriceTier {
    return this.#tiers.get(group) ?? { group, multiplier: BASE_MULTIPLIER };
  }

  /** Every group record, by name. */
  list(): GroupRecord[] {
    return [...this.#records.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** A group record (read from KV, not the snapshot), or 404. */
  async get(name: string): Promise<GroupRecord> {
    const record = (await this.#kv.get<GroupRecord>(kvKeys.group(name))).value;
    if (!record) throw groupNotFound(name);
    return record;
  }

  /** Writes a group record whole (PUT): creates it or replaces its fields. */
  async put(name: string, input: GroupInput): Promise<GroupRecord> {
    const key = kvKeys.group(name);
    const now = new Date().toISOString();
    // kv-locked: withKvRetry retries a locked commit; a failed check reads the record again.
    for (let attempt = 0; attempt < 20; attempt++) {
      const current = await withKvRetry(() => this.#kv.get<GroupRecord>(key));
      const record: GroupRecord = {
        name,
        description: input.description,
        price_multiplier: input.price_multiplier,
        created_at: current.value?.created_at ?? now,
        updated_at: now,
      };
      const committed = await withKvRetry(() =>
        this.#kv.atomic().check(current).set(key, record).set(kvKeys.groupsVersion(), now)
          .commit()
      );
      if (committed.ok) {
        await withKvRetry(() => this.reload());
        return record;
      }
    }
    throw new GatewayError("conflict", 409, "The group changed meanwhile; retry");
  }

  /** Deletes a group record: the group's prices are ×1 again. 404 when there is none. */
  async delete(name: string): Promise<void> {
    const key = kvKeys.group(name);
    const current = await withKvRetry(() => this.#kv.get<GroupRecord>(key));
    if (!current.value) throw groupNotFound(name);
    await withKvRetry(() =>
      this.#kv.atomic().delete(key).set(kvKeys.groupsVersion(), new Date().toISOString()).commit()
    );
    await withKvRetry(() => this.reload());
  }
}
