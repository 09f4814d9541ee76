/** A request-log entry of a plain billed chat request, for tests of the log and its rollups. */

import type { RequestLogEntry } from "../../core/telemetry/request_log.ts";
import { timeOrderedId } from "../../core/util/ids.ts";

export function logEntry(fields: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    id: timeOrderedId("req"),
    at: new Date().toISOString(),
    interface: "openai",
    route: "/v1/chat/completions",
    key_id: "key_a",
    model: "m",
    channel_id: "ch_1",
    status: 200,
    latency_ms: 1,
    stream: false,
    attempts: 1,
    upstream_attempts: [],
    input_tokens: 10,
    cached_input_tokens: 2,
    output_tokens: 5,
    usage_source: "upstream",
    cost: 30,
    error_code: null,
    outcome: "completed",
    ...fields,
  };
}
