/**
 * Webhook endpoints in KV (`["webhooks", id]`): create, read, list, change, delete, rotate. The
 * secret is sealed with the secret box, like upstream keys, and shown only when it is made (on
 * create and rotate); a rotated-out secret is kept sealed with the end of its grace, and signs
 * beside the new one until then. Endpoints written by the config file refuse admin changes.
 */

import { GatewayError } from "../errors.ts";
import { kvKeys } from "../kv/kv_keys.ts";
import { kvListOptions, type ListOptions } from "../kv/list_options.ts";
import { timeOrderedId } from "../util/ids.ts";
import { sentFields } from "../util/patch_schema.ts";
import type { SecretBox } from "../channels/secret_box.ts";
import {
  CHANNEL_EVENTS,
  covers,
  type EndpointView,
  endpointView,
  specificity,
  type StoredEndpoint,
  type WebhookInput,
  type WebhookPatch,
} from "./endpoint_schema.ts";
import { newWebhookSecret } from "./signing.ts";
import { webhookUrlProblem } from "./public_address.ts";
import { withKvRetry } from "../kv/kv_retry.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

export interface EndpointStoreOptions {
  /** GATEWAY_WEBHOOK_ALLOW_PRIVATE: private and loopback URLs are accepted. */
  allowPrivate: boolean;
  /** The config file, named in the 409 for endpoints it manages. */
  configFile?: string;
  /** Whether a key exists (an endpoint for a missing key is refused). */
  hasKey(keyId: string): Promise<boolean>;
}

/** An endpoint's view with its secret, as create and rotate answer (the only times it shows). */
export type EndpointWithSecret = EndpointView & { secret: string };

export const webhookNotFound = (id: string) =>
  new GatewayError("webhook_not_found", 404, `No webhook endpoint has the id '${id}'`);

export class EndpointStore {
  readonly #kv: KvBackend;
  readonly #box: SecretBox;
  readonly #options: EndpointStoreOptions;

  constructor(kv: KvBackend, box: SecretBox, options: EndpointStoreOptions) {
    this.#kv = kv;
    this.#box = box;
    this.#options = options;
  }

  /** Whether private and loopback receivers are allowed here. */
  get allowPrivate(): boolean {
    return this.#options.allowPrivate;
  }

  /** The stored endpoint, or a 404. */
  async get(id: string): Promise<StoredEndpoint> {
    const endpoint = (await this.#kv.get<StoredEndpoint>(kvKeys.webhook(id))).value;
    if (!endpoint) throw webhookNotFound(id);
    return endpoint;
  }

  /** The endpoint's public view, or a 404. */
  async view(id: string): Promise<EndpointView> {
    return endpointView(await this.get(id));
  }

  /** Endpoints' views, a page at a time, oldest first unless `order` is `desc`. */
  async list(options: ListOptions): Promise<{ data: EndpointView[]; cursor: string | null }> {
    const iterator = this.#kv.list<StoredEndpoint>(
      { prefix: kvKeys.webhooks() },
      kvListOptions(options),
    );
    const data: EndpointView[] = [];
    for await (const entry of iterator) data.push(endpointView(entry.value));
    return { data, cursor: data.length === options.limit ? iterator.cursor : null };
  }

  /** Every endpoint (the fan-out reads them all; an operator has tens, not thousands). */
  async all(): Promise<StoredEndpoint[]> {
    const found: StoredEndpoint[] = [];
    for await (const entry of this.#kv.list<StoredEndpoint>({ prefix: kvKeys.webhooks() })) {
      found.push(entry.value);
    }
    return found;
  }

  /** The enabled endpoints that hear of `key`'s tasks. */
  async covering(key: { id: string; group: string }): Promise<StoredEndpoint[]> {
    return (await this.all()).filter((endpoint) => endpoint.enabled && covers(endpoint, key));
  }

  /**
   * The endpoint whose secret signs a task's callback for `key`: the most specific enabled one
   * that covers the key (key, then group, then all keys; the oldest of equals), or null.
   */
  async callbackEndpointFor(key: { id: string; group: string }): Promise<StoredEndpoint | null> {
    const candidates = await this.covering(key);
    candidates.sort((a, b) =>
      specificity(b) - specificity(a) || (a.created_at < b.created_at ? -1 : 1)
    );
    return candidates[0] ?? null;
  }

  /** The secrets that sign for `endpoint` now: its own, and the previous one during its grace. */
  async secretsOf(endpoint: StoredEndpoint, now = Date.now()): Promise<string[]> {
    const secrets = [await this.#box.open(endpoint.sealed_secret)];
    if (endpoint.previous && Date.parse(endpoint.previous.expires_at) > now) {
      secrets.push(await this.#box.open(endpoint.previous.sealed_secret));
    }
    return secrets;
  }

  /** Refuses a URL the SSRF guard refuses (400 `invalid_webhook_url`). */
  checkUrl(url: string, options: { param?: string; allowPrivate?: boolean } = {}): void {
    const param = options.param ?? "url";
    const allowPrivate = options.allowPrivate ?? this.#options.allowPrivate;
    const problem = webhookUrlProblem(url, { allowPrivate });
    if (problem) {
      throw new GatewayError("invalid_webhook_url", 400, `${param} ${problem}`, { param });
    }
  }

  async #checkKey(keyId: string | null): Promise<void> {
    if (keyId && !(await this.#options.hasKey(keyId))) {
      throw new GatewayError("key_not_found", 400, `No key has the id '${keyId}'`, {
        param: "key_id",
      });
    }
  }

  /**
   * Creates an endpoint with a new secret (or `secret`, from the config file, which also gives
   * the id and rewrites its own endpoint at every boot, keeping its creation time). A config
   * endpoint's private address is not refused here: its deliveries fail naming the reason.
   */
  async create(
    input: WebhookInput,
    options: { id?: string; source?: StoredEndpoint["source"]; secret?: string } = {},
  ): Promise<EndpointWithSecret> {
    const fromConfig = options.source === "config";
    this.checkUrl(input.url, { allowPrivate: fromConfig || undefined });
    if (!fromConfig) await this.#checkKey(input.key_id);
    const id = options.id ?? timeOrderedId("whk");
    const secret = options.secret ?? newWebhookSecret();
    const now = new Date().toISOString();
    const existing = options.id
      ? (await this.#kv.get<StoredEndpoint>(kvKeys.webhook(id))).value
      : null;
    const endpoint: StoredEndpoint = {
      id,
      ...input,
      source: options.source ?? "admin",
      sealed_secret: await this.#box.seal(secret),
      previous: null,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await withKvRetry(() => this.#kv.set(kvKeys.webhook(id), endpoint));
    return { ...endpointView(endpoint), secret };
  }

  #refuseIfManaged(endpoint: StoredEndpoint, action: string): void {
    if (endpoint.source !== "config") return;
    const file = this.#options.configFile ?? "the config file";
    throw new GatewayError(
      "managed_by_config",
      409,
      `Cannot ${action} webhook endpoint '${endpoint.id}': it is managed by ${file}, which ` +
        "rewrites it at every boot; change it there and restart",
    );
  }

  /** Writes `next` over `entry` if nothing changed it meanwhile (else 409 `conflict`). */
  async #replace(entry: Deno.KvEntryMaybe<StoredEndpoint>, next: StoredEndpoint): Promise<void> {
    const result = await withKvRetry(() =>
      this.#kv.atomic().check(entry).set(kvKeys.webhook(next.id), next).commit()
    );
    if (!result.ok) throw new GatewayError("conflict", 409, "The record changed meanwhile; retry");
  }

  /** Changes exactly the fields of `patch` that were sent. */
  async update(id: string, patch: WebhookPatch): Promise<EndpointView> {
    const entry = await this.#kv.get<StoredEndpoint>(kvKeys.webhook(id));
    if (!entry.value) throw webhookNotFound(id);
    this.#refuseIfManaged(entry.value, "change");
    const changes = sentFields(patch);
    const next: StoredEndpoint = {
      ...entry.value,
      ...changes,
      updated_at: new Date().toISOString(),
    } as StoredEndpoint;
    if (next.key_id && next.group) {
      throw new GatewayError(
        "invalid_request",
        400,
        "The endpoint would have both key_id and group; send the other as null",
        { param: changes.key_id ? "key_id" : "group" },
      );
    }
    if (
      (next.key_id || next.group) &&
      next.events.some((event) => (CHANNEL_EVENTS as readonly string[]).includes(event))
    ) {
      throw new GatewayError(
        "invalid_request",
        400,
        "channel.disabled and channel.recovered are about channels, not one key's tasks: only " +
          "an endpoint of every key (no key_id or group) may name them",
        { param: "events" },
      );
    }
    if (changes.url !== undefined) this.checkUrl(next.url);
    if (changes.key_id) await this.#checkKey(next.key_id);
    await this.#replace(entry, next);
    return endpointView(next);
  }

  /** Deletes the endpoint (its delivery history stays until it expires). */
  async delete(id: string): Promise<void> {
    const endpoint = await this.get(id);
    this.#refuseIfManaged(endpoint, "delete");
    await withKvRetry(() => this.#kv.delete(kvKeys.webhook(id)));
  }

  /**
   * Gives the endpoint a new secret; the old one signs beside it for `graceSeconds` (0: it
   * stops at once). A secret still in the grace of an earlier rotation is dropped.
   */
  async rotate(
    id: string,
    { graceSeconds }: { graceSeconds: number },
  ): Promise<EndpointWithSecret> {
    const entry = await this.#kv.get<StoredEndpoint>(kvKeys.webhook(id));
    if (!entry.value) throw webhookNotFound(id);
    this.#refuseIfManaged(entry.value, "rotate the secret of");
    const secret = newWebhookSecret();
    const now = Date.now();
    const next: StoredEndpoint = {
      ...entry.value,
      sealed_secret: await this.#box.seal(secret),
      previous: graceSeconds > 0
        ? {
          sealed_secret: entry.value.sealed_secret,
          expires_at: new Date(now + graceSeconds * 1000).toISOString(),
        }
        : null,
      updated_at: new Date(now).toISOString(),
    };
    await this.#replace(entry, next);
    return { ...endpointView(next, now), secret };
  }
}
