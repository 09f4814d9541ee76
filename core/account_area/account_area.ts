/**
 * The token management area's service: what a member (console or personal access token) may
 * read and change in their account — the account and its wallet, keys, requests, tasks, usage,
 * ledger. Every call is scoped by the actor's account; an id of another account's record is
 * answered exactly as an id that does not exist (404), so nothing says it exists.
 */

import { BASE_MULTIPLIER, tieredPrice } from "../billing/price_tier.ts";
import { GatewayError } from "../errors.ts";
import type { Gateway } from "../gateway.ts";
import type { ListOptions } from "../kv/list_options.ts";
import type { RequestLogEntry } from "../telemetry/request_log_entry.ts";
import { keyMayUseModel } from "../channels/catalog.ts";
import { mergeUsageRows, type UsageQuery } from "../telemetry/usage_rollups.ts";
import type { TaskFilter } from "../tasks/task_store.ts";
import { type AccountActor, managesKey } from "./actor.ts";
import type { MemberKeyInput, MemberKeyPatch } from "./member_key_schema.ts";

const keyNotFound = (id: string) =>
  new GatewayError("key_not_found", 404, `No key of this account has the id '${id}'`, {
    param: "id",
  });

export class AccountArea {
  readonly #gateway: Gateway;

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
  }

  /** The actor's account: its wallet, group and floor, and the actor's role. */
  async account(actor: AccountActor) {
    const view = await this.#gateway.accounts.get(actor.accountId);
    return {
      id: view.id,
      name: view.name,
      group: view.group,
      balance: view.balance,
      credit_limit: view.credit_limit,
      unlimited: view.unlimited,
      enabled: view.enabled,
      keys: view.keys,
      spend_today: view.spend_today,
      spend_month: view.spend_month,
      last_used_at: view.last_used_at,
      role: actor.role,
    };
  }

  /** Model ids the account's group may use that a channel serves, sorted. */
  async models(actor: AccountActor): Promise<string[]> {
    const account = await this.#gateway.accounts.record(actor.accountId);
    const registry = this.#gateway.registry;
    return registry.models
      .filter((model) =>
        model.enabled !== false && keyMayUseModel({ group: account.group, models: null }, model) &&
        registry.servesModel(model.id, account.group)
      )
      .map((model) => model.id)
      .sort();
  }

  /**
   * The account's models with their catalog price and the price the account pays (its group's
   * price tier applied), sorted by id.
   */
  async priced(actor: AccountActor) {
    const account = await this.#gateway.accounts.record(actor.accountId);
    const tier = this.#gateway.priceTierOf({ group: account.group });
    const ids = new Set(await this.models(actor));
    const models = this.#gateway.registry.models.filter((model) => ids.has(model.id))
      .sort((a, b) => a.id.localeCompare(b.id));
    return {
      tier,
      models: models.map((model) => ({
        id: model.id,
        kind: model.kind,
        description: model.description ?? null,
        price: model.price,
        price_multiplier: tier.multiplier / BASE_MULTIPLIER,
        price_paid: tieredPrice(model.price, tier),
        model,
      })),
    };
  }

  /** The keys the actor manages (an owner: all of the account's), newest first. */
  async keys(actor: AccountActor) {
    const ids = await this.#gateway.accounts.keyIdsOf(actor.accountId);
    const views = await this.#gateway.keys.views(ids);
    return views.filter((key) => managesKey(actor, key)).reverse().map(memberView);
  }

  /** One key the actor manages, or 404. */
  async key(actor: AccountActor, id: string) {
    return memberView(await this.#managed(actor, id));
  }

  async #managed(actor: AccountActor, id: string) {
    const key = await this.#gateway.keys.get(id).catch((error) => {
      if (error instanceof GatewayError && error.status === 404) throw keyNotFound(id);
      throw error;
    });
    if (!managesKey(actor, key)) throw keyNotFound(id);
    return key;
  }

  /** Makes a key in the account; its models must be among the account's. */
  async createKey(actor: AccountActor, input: MemberKeyInput) {
    await this.#checkModels(actor, input.models);
    const account = await this.#gateway.accounts.record(actor.accountId);
    if (!account.enabled) {
      throw new GatewayError(
        "account_disabled",
        403,
        "The account is suspended; no key can be made until the operator resumes it",
      );
    }
    const created = await this.#gateway.keys.create({
      ...input,
      group: account.group,
      credit_limit: account.credit_limit,
      unlimited: account.unlimited,
      owner: null,
      balance: 0,
      account_id: actor.accountId,
      created_by: actor.memberId,
    });
    return { ...memberView(created), key: created.key };
  }

  async updateKey(actor: AccountActor, id: string, patch: MemberKeyPatch) {
    await this.#managed(actor, id);
    if (patch.models !== undefined) await this.#checkModels(actor, patch.models);
    return memberView(await this.#gateway.keys.update(id, patch));
  }

  /** A new secret (shown once); the old one works for `graceSeconds`. */
  async rotateKey(
    actor: AccountActor,
    id: string,
    options: { graceSeconds: number; idempotencyKey?: string },
  ) {
    await this.#managed(actor, id);
    const rotated = await this.#gateway.keys.rotate(id, options);
    return { ...memberView(rotated as KeyView), key: rotated.key as string };
  }

  async deleteKey(actor: AccountActor, id: string): Promise<void> {
    await this.#managed(actor, id);
    await this.#gateway.keys.delete(id);
  }

  /**
   * Redeems a code into the account's wallet (an owner or a member may): it credits once, however
   * many redemptions race (core/accounts/redemption_codes.ts).
   */
  async redeem(actor: AccountActor, code: string) {
    if (!code.trim()) {
      throw new GatewayError("invalid_request", 400, "Enter a code to redeem", { param: "code" });
    }
    const account = await this.#gateway.accounts.record(actor.accountId);
    const redemption = await this.#gateway.redemptions.redeem(code.trim(), {
      accountId: account.id,
      walletId: account.wallet_id,
      group: account.group,
    });
    return {
      code_id: redemption.code_id,
      amount: redemption.amount,
      balance: redemption.ledger_entry.balance_after,
      ledger_entry_id: redemption.ledger_entry.id,
    };
  }

  /** The wallet's ledger, each entry naming its key. */
  async ledger(actor: AccountActor, options: ListOptions) {
    const account = await this.#gateway.accounts.record(actor.accountId);
    const page = await this.#gateway.ledger.list(account.wallet_id, options);
    return {
      data: page.data.map(({ wallet_id: _wallet, instance: _instance, ...entry }) => entry),
      cursor: page.cursor,
    };
  }

  /** The account's logged requests (optionally of one of its keys), without channels. */
  async requests(actor: AccountActor, options: ListOptions, filter: { key?: string } = {}) {
    if (filter.key) await this.#inAccount(actor, filter.key);
    const page = await this.#gateway.requestLog.list(options, {
      account: actor.accountId,
      ...(filter.key && { key: filter.key }),
    });
    return { data: page.data.map(requestView), cursor: page.cursor };
  }

  /** One logged request of the account, or 404. */
  async request(actor: AccountActor, id: string) {
    const record = await this.#gateway.requestLog.get(id);
    if (!record || record.account_id !== actor.accountId) {
      throw new GatewayError(
        "request_not_found",
        404,
        `No request of this account has the id '${id}'`,
        { param: "id" },
      );
    }
    return requestView(record);
  }

  /** The account's tasks (optionally of one of its keys). */
  async tasks(actor: AccountActor, options: ListOptions, filter: Omit<TaskFilter, "keys"> = {}) {
    if (filter.key) await this.#inAccount(actor, filter.key);
    const keys = new Set(await this.#gateway.accounts.keyIdsOf(actor.accountId));
    const page = await this.#gateway.tasks.list(options, { ...filter, keys });
    return {
      data: page.data.map((task) => ({
        id: task.id,
        kind: task.kind,
        key_id: task.key_id,
        model: task.model,
        status: task.status,
        progress: task.progress,
        submit_time: task.submit_time,
        finish_time: task.finish_time,
        held: task.held,
        cost: task.cost,
        fail_reason: task.fail_reason,
      })),
      cursor: page.cursor,
    };
  }

  /**
   * Usage rows of the account's keys (by key and/or model), from the rollups: one row per
   * interval and group, however many keys it sums.
   */
  async usage(actor: AccountActor, query: Omit<UsageQuery, "keyId">) {
    const ids = await this.#gateway.accounts.keyIdsOf(actor.accountId);
    const groupBy = query.groupBy.filter((group) => group !== "channel");
    const rows = [];
    for (const keyId of ids) {
      rows.push(...await this.#gateway.requestLog.usage({ ...query, groupBy, keyId }));
    }
    return mergeUsageRows(rows);
  }

  /** 404 unless `keyId` is a key of the actor's account (a member may read its usage). */
  async #inAccount(actor: AccountActor, keyId: string): Promise<void> {
    const ids = await this.#gateway.accounts.keyIdsOf(actor.accountId);
    if (!ids.includes(keyId)) throw keyNotFound(keyId);
  }

  async #checkModels(actor: AccountActor, models: string[] | null | undefined): Promise<void> {
    if (!models) return;
    const allowed = new Set(await this.models(actor));
    const outside = models.filter((model) => !allowed.has(model));
    if (outside.length) {
      throw new GatewayError(
        "invalid_request",
        400,
        `models must be among the account's models; not available: ${outside.join(", ")}`,
        { param: "models" },
      );
    }
  }

  /** Usage rows of one key the actor manages (404 for any other), from the rollups. */
  async keyUsage(actor: AccountActor, id: string, query: Omit<UsageQuery, "keyId">) {
    await this.#managed(actor, id);
    const rows = await this.#gateway.requestLog.usage({ ...query, keyId: id });
    return rows.map(({ channel_id: _channel, ...row }) => row);
  }
}

type KeyView = Awaited<ReturnType<Gateway["keys"]["get"]>>;

/** A key as a member sees it: no wallet internals, no owner, no operator fields. */
function memberView(key: KeyView) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    models: key.models,
    expires_at: key.expires_at,
    rpm: key.rpm,
    tpm: key.tpm,
    spend_limits: key.spend_limits,
    enabled: key.enabled,
    strict_fields: key.strict_fields ?? false,
    ip_allowlist: key.ip_allowlist ?? null,
    created_by: key.created_by ?? null,
    previous_secret: key.previous_secret,
    spend_today: key.spend_today,
    period_spend: key.period_spend,
    last_used_at: key.last_used_at,
    created_at: key.created_at,
    updated_at: key.updated_at,
  };
}

/** A request record as a member sees it: no channels, no upstream attempts. */
function requestView(record: RequestLogEntry) {
  const {
    channel_id: _channel,
    upstream_attempts: _attempts,
    account_id: _account,
    ...rest
  } = record;
  return rest;
}
