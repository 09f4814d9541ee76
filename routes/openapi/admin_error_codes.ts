/**
 * The stable `code`s of admin API errors, with their status and what to do. The admin API answers
 * every error in one JSON shape (the OpenAI envelope): see docs/admin-api.md and the OpenAPI
 * document's `AdminError`.
 */

export interface AdminErrorCode {
  code: string;
  status: number;
  meaning: string;
}

export const ADMIN_ERROR_CODES: readonly AdminErrorCode[] = [
  {
    code: "invalid_request",
    status: 400,
    meaning: "a field, parameter or query value is wrong; `param` names it",
  },
  { code: "invalid_json", status: 400, meaning: "the body is not UTF-8 JSON, or nests too deep" },
  {
    code: "invalid_cursor",
    status: 400,
    meaning: "`cursor` is not one this list gave (cut short, changed or made up)",
  },
  {
    code: "invalid_amount",
    status: 400,
    meaning: "a credit amount is not a whole number of units in range",
  },
  { code: "invalid_base_url", status: 400, meaning: "a channel's base_url does not fit its type" },
  {
    code: "model_not_in_catalog",
    status: 400,
    meaning: "a channel names a model the catalog lacks (send create_models)",
  },
  {
    code: "unknown_key_fingerprint",
    status: 400,
    meaning: "remove_keys names a fingerprint the channel does not have",
  },
  { code: "last_upstream_key", status: 400, meaning: "the change would leave a channel no key" },
  { code: "model_not_on_channel", status: 400, meaning: "the channel tested does not serve it" },
  {
    code: "invalid_webhook_url",
    status: 400,
    meaning: "a webhook URL is not absolute http(s), or points at a private or loopback address",
  },
  { code: "invalid_admin_token", status: 401, meaning: "the admin token is missing or wrong" },
  { code: "not_found", status: 404, meaning: "no route has this method and path" },
  { code: "key_not_found", status: 404, meaning: "no key has the id" },
  { code: "channel_not_found", status: 404, meaning: "no channel has the id" },
  { code: "model_not_found", status: 404, meaning: "no catalog entry has the id" },
  { code: "request_not_found", status: 404, meaning: "no request record has the id" },
  { code: "task_not_found", status: 404, meaning: "no task has the id" },
  { code: "webhook_not_found", status: 404, meaning: "no webhook endpoint has the id" },
  { code: "delivery_not_found", status: 404, meaning: "the endpoint has no delivery with the id" },
  { code: "capture_not_found", status: 404, meaning: "no captured bodies for the request" },
  { code: "request_timeout", status: 408, meaning: "the client stalled while sending the body" },
  { code: "conflict", status: 409, meaning: "the record changed meanwhile; retry" },
  {
    code: "idempotency_key_reused",
    status: 409,
    meaning: "the Idempotency-Key was used before for a different request",
  },
  {
    code: "managed_by_config",
    status: 409,
    meaning: "the record belongs to the config file; change it there",
  },
  {
    code: "delivery_in_flight",
    status: 409,
    meaning: "an attempt of the delivery is being sent right now",
  },
  { code: "model_in_use", status: 409, meaning: "a channel still serves the model being deleted" },
  { code: "duplicate_credit", status: 409, meaning: "a credit with this ref was made before" },
  {
    code: "balance_overflow",
    status: 409,
    meaning: "the credit would take the balance past the safe range",
  },
  { code: "request_too_large", status: 413, meaning: "the body is over the admin limit (1 MB)" },
  {
    code: "auth_rate_limited",
    status: 429,
    meaning: "too many failed authentications from this address; see retry-after",
  },
  {
    code: "internal_error",
    status: 500,
    meaning: "a fault in the gateway; the request id finds it in the logs",
  },
  { code: "ledger_busy", status: 503, meaning: "the ledger stayed contended; retry" },
];
