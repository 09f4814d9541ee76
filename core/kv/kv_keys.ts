/** Every Deno KV key the gateway uses is built here, so the layout can be read in one place. */

export const kvKeys = {
  adminTokenHash: () => ["admin", "token_hash"] as const,
  apiKey: (id: string) => ["keys", id] as const,
  apiKeys: () => ["keys"] as const,
  apiKeyByHash: (hash: string) => ["key_by_hash", hash] as const,
  balance: (keyId: string) => ["balances", keyId] as const,
  ledgerEntry: (keyId: string, entryId: string) => ["ledger", keyId, entryId] as const,
  ledgerOfKey: (keyId: string) => ["ledger", keyId] as const,
  ledger: () => ["ledger"] as const,
  /** Time index of every key's entries (entry ids are time-ordered): entry id → key id. */
  ledgerByTime: (entryId: string) => ["ledger_by_time", entryId] as const,
  ledgersByTime: () => ["ledger_by_time"] as const,
  ledgerRef: (ref: string) => ["ledger_ref", ref] as const,
  openHold: (ref: string) => ["holds", ref] as const,
  openHolds: () => ["holds"] as const,
  /** A process's budget lease on a key (budget_leases.ts): units it may spend without a commit. */
  budgetLease: (keyId: string, instanceId: string) => ["budget_leases", keyId, instanceId] as const,
  budgetLeasesOf: (keyId: string) => ["budget_leases", keyId] as const,
  budgetLeases: () => ["budget_leases"] as const,
  /** Units spent or held by a key in one spend window (`day:2026-11-24`…), a KvU64. */
  spendCounter: (keyId: string, windowId: string) => ["spend", keyId, windowId] as const,
  /** Units of a key's costs its credit floor left uncollected, summed over its life, a KvU64. */
  shortfallTotal: (keyId: string) => ["shortfall_total", keyId] as const,
  /** Tokens used or held by a key in one UTC minute (minutes since the epoch), a KvU64. */
  tokenCounter: (keyId: string, minute: number) => ["tokens_per_minute", keyId, minute] as const,
  /** When a key was last used (ms), written at most once a minute per key and instance. */
  keyLastUsed: (keyId: string) => ["key_last_used", keyId] as const,
  /** A rotation made under an Idempotency-Key (its SHA-256), kept for the idempotency window. */
  keyRotation: (keyId: string, idempotencyDigest: string) =>
    ["key_rotations", keyId, idempotencyDigest] as const,
  /** Accounts (core/accounts): customers with one wallet each. */
  account: (id: string) => ["accounts", id] as const,
  accounts: () => ["accounts"] as const,
  /** The keys of an account: account id, key id → true. */
  accountKey: (accountId: string, keyId: string) => ["account_keys", accountId, keyId] as const,
  accountKeys: (accountId: string) => ["account_keys", accountId] as const,
  /** Set once every key stored before accounts has an account of its own. */
  accountsUpgraded: () => ["migrations", "accounts_v1"] as const,
  channel: (id: string) => ["channels", id] as const,
  channels: () => ["channels"] as const,
  model: (id: string) => ["models", id] as const,
  models: () => ["models"] as const,
  catalogVersion: () => ["catalog_version"] as const,
  /** What the gateway disabled of a channel on its own (core/channels/auto_disabler.ts). */
  channelAutoDisabled: (channelId: string) => ["channel_auto_disabled", channelId] as const,
  channelsAutoDisabled: () => ["channel_auto_disabled"] as const,
  /** Held by the one instance that runs recovery probes now: {holder, until (ms)}. */
  channelRecoveryLease: () => ["channel_recovery_lease"] as const,
  /** One instance's attempt counts of a channel in one 5-minute bucket (channel_health.ts). */
  channelHealth: (channelId: string, bucketMs: number, instanceId: string) =>
    ["channel_health", channelId, bucketMs, instanceId] as const,
  channelHealthOf: (channelId: string) => ["channel_health", channelId] as const,
  channelLastError: (channelId: string) => ["channel_last_error", channelId] as const,
  /** A breaker not closed (open, half-open or set aside): key "" is the channel's own. */
  breaker: (channelId: string, keyFingerprint: string) =>
    ["breakers", channelId, keyFingerprint] as const,
  breakersOf: (channelId: string) => ["breakers", channelId] as const,
  breakers: () => ["breakers"] as const,
  /** The one half-open probe of a breaker in flight, across instances (a lease). */
  breakerProbe: (channelId: string, keyFingerprint: string) =>
    ["breaker_probes", channelId, keyFingerprint] as const,
  /** A key's body capture switch (body_capture.ts), expiring with it. */
  captureSwitch: (keyId: string) => ["capture_switches", keyId] as const,
  captureSwitches: () => ["capture_switches"] as const,
  capturedRequest: (requestId: string) => ["captured_requests", requestId] as const,
  requestLog: (id: string) => ["requests", id] as const,
  requestLogs: () => ["requests"] as const,
  /** Request-log indexes, one per filter (`key`, `model`…), written with the record. */
  requestBy: (field: string, value: string, id: string) =>
    ["requests_by", field, value, id] as const,
  requestsBy: (field: string, value: string) => ["requests_by", field, value] as const,
  /** Usage rollups: one KvU64 counter per hour (ms), key, model, channel and counter name. */
  usage: (
    hourMs: number,
    parts: { key: string; model: string; channel: string; counter: string },
  ) => ["usage", hourMs, parts.key, parts.model, parts.channel, parts.counter] as const,
  usages: () => ["usage"] as const,
  tasks: () => ["tasks"] as const,
  task: (id: string) => ["tasks", id] as const,
  /** Creation-time index of tasks (task ids are random): ms, a unique tie-break → task id. */
  taskByTime: (submittedMs: number, tieBreak: string) =>
    ["tasks_by_time", submittedMs, tieBreak] as const,
  tasksByTime: () => ["tasks_by_time"] as const,
  /** Set once the time indexes above cover records written before they existed. */
  timeIndexesBuilt: () => ["migrations", "time_indexes_v1"] as const,
  /** Due-time index: tasks a worker should look at once `at` (ms) has passed. */
  taskDue: (at: number, id: string) => ["task_due", at, id] as const,
  tasksDue: () => ["task_due"] as const,
  /** A gateway process's lease (see instance_lease.ts). */
  instance: (id: string) => ["instances", id] as const,
  /** What /readyz writes and reads back to see that the store answers (store_probe.ts). */
  readinessProbe: (instanceId: string) => ["readiness_probe", instanceId] as const,
  media: (id: string) => ["media", id] as const,
  /** Audit records of admin changes; ids are time-ordered, so the key order is the time index. */
  auditRecord: (id: string) => ["audit", id] as const,
  auditRecords: () => ["audit"] as const,
  mediaChunk: (id: string, index: number) => ["media_chunk", id, index] as const,
  /** Webhook endpoints (core/webhooks), by id; their secrets sealed. */
  webhook: (id: string) => ["webhooks", id] as const,
  webhooks: () => ["webhooks"] as const,
  /** A task's end waiting to be turned into deliveries, written in the commit that ends it. */
  webhookOutbox: (eventId: string) => ["webhook_outbox", eventId] as const,
  webhookOutboxes: () => ["webhook_outbox"] as const,
  webhookDelivery: (id: string) => ["webhook_deliveries", id] as const,
  /** Deliveries of one endpoint and of one task (delivery ids are time-ordered). */
  webhookDeliveryByEndpoint: (endpointId: string, id: string) =>
    ["webhook_deliveries_by_endpoint", endpointId, id] as const,
  webhookDeliveriesByEndpoint: (endpointId: string) =>
    ["webhook_deliveries_by_endpoint", endpointId] as const,
  webhookDeliveryByTask: (taskId: string, id: string) =>
    ["webhook_deliveries_by_task", taskId, id] as const,
  webhookDeliveriesByTask: (taskId: string) => ["webhook_deliveries_by_task", taskId] as const,
  /** Due-time index of deliveries waiting for an attempt (ms). */
  webhookDue: (at: number, id: string) => ["webhook_due", at, id] as const,
  webhooksDue: () => ["webhook_due"] as const,
  /** A console session, by the SHA-256 of its id (the cookie holds the id, KV never does). */
  consoleSession: (idHash: string) => ["console_sessions", idHash] as const,
  /** Ends of a member's console sessions, so "sign out elsewhere" can find them. */
  memberSession: (memberId: string, idHash: string) =>
    ["member_sessions", memberId, idHash] as const,
  memberSessions: (memberId: string) => ["member_sessions", memberId] as const,
  /** Members (core/members): people who sign in with an email and a password. */
  member: (id: string) => ["members", id] as const,
  members: () => ["members"] as const,
  /** Unique index: a normalised (lower-case) email → member id. */
  memberByEmail: (email: string) => ["member_by_email", email] as const,
  /** A member's role in an account, kept both ways. */
  membership: (memberId: string, accountId: string) =>
    ["memberships", memberId, accountId] as const,
  membershipsOf: (memberId: string) => ["memberships", memberId] as const,
  accountMember: (accountId: string, memberId: string) =>
    ["account_members", accountId, memberId] as const,
  accountMembers: (accountId: string) => ["account_members", accountId] as const,
  /** A single-use token (reset link, invitation, sign-in challenge) by the SHA-256 of its secret. */
  memberToken: (hash: string) => ["member_tokens", hash] as const,
  /** The last TOTP time step a member used, so a code is not accepted twice. */
  totpLastStep: (memberId: string) => ["totp_last_step", memberId] as const,
  /** A member's personal access token (account API), by id; its secret is never stored. */
  accessToken: (id: string) => ["access_tokens", id] as const,
  /** Unique index: the SHA-256 of a personal access token's secret → its id. */
  accessTokenByHash: (hash: string) => ["access_token_by_hash", hash] as const,
  /** The tokens a member made for one account. */
  memberAccessToken: (memberId: string, accountId: string, id: string) =>
    ["member_access_tokens", memberId, accountId, id] as const,
  memberAccessTokens: (memberId: string, accountId: string) =>
    ["member_access_tokens", memberId, accountId] as const,
  /** When a token was last used (ms), written at most once a minute per instance. */
  accessTokenLastUsed: (id: string) => ["access_token_last_used", id] as const,
  /** A self sign-up code (operator-made, a number of uses) by the SHA-256 of the code. */
  signupCode: (hash: string) => ["signup_codes", hash] as const,
  /** Group records (price tiers) by name, and the version every instance watches to reload them. */
  group: (name: string) => ["groups", name] as const,
  groups: () => ["groups"] as const,
  groupsVersion: () => ["groups_version"] as const,
  /** Redemption-code batches (ids are time-ordered, so the key order is creation order). */
  redemptionBatch: (batchId: string) => ["redemption_batches", batchId] as const,
  redemptionBatches: () => ["redemption_batches"] as const,
  /** A batch's codes: their state, never the code itself. */
  redemptionCode: (batchId: string, codeId: string) =>
    ["redemption_codes", batchId, codeId] as const,
  redemptionCodesOf: (batchId: string) => ["redemption_codes", batchId] as const,
  /** Code id → its batch id, so a code is found by its id alone. */
  redemptionCodeBatch: (codeId: string) => ["redemption_code_batch", codeId] as const,
  /** SHA-256 (hex) of a code → {batch_id, code_id}: how a redeemed code is found. */
  redemptionCodeByHash: (hash: string) => ["redemption_code_by_hash", hash] as const,
  /** The console's money format (currency and display precision), one record. */
  moneyFormat: () => ["settings", "money"] as const,
};
