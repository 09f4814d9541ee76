import { serialize } from "node:v8";
import type { RequestLogEntry } from "../../../core/telemetry/request_log.ts";
import { recordOf, storedRecord } from "../../../core/telemetry/request_log_record.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";

/** A plain billed chat request, as the gateway logs one. */
const plain: RequestLogEntry = {
  id: "req_0mwvg06720000OfyH6hvD",
  at: "2026-11-25T01:26:18.287Z",
  interface: "openai-chat",
  route: "/v1/chat/completions",
  key_id: "key_0mwvg065x0001Cziw3agN",
  model: "bench-model",
  channel_id: "ch_0mwvg06500000rhNTfCBm",
  status: 200,
  latency_ms: 80.93,
  stream: false,
  attempts: 1,
  upstream_attempts: [{
    channel_id: "ch_0mwvg06500000rhNTfCBm",
    url: "http://127.0.0.1:38709/v1/chat/completions",
    outcome: "ok",
    latency_ms: 0.95,
  }],
  input_tokens: 10,
  cached_input_tokens: 0,
  output_tokens: 5,
  usage_source: "upstream",
  cost: 20,
  error_code: null,
  outcome: "completed",
  receipt: {
    kind: "text",
    units: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5, reasoning_tokens: null },
    prices: { input: 1_000_000, cached_input: 1_000_000, output: 2_000_000 },
    multipliers: {},
    formula:
      "ceil((10 uncached input × 1000000 + 0 cached input × 1000000 + 5 output × 2000000) / 1000000) = 20",
    amount: 20,
    charged: 20,
    status: "charged",
    ledger_entry_ids: ["le_0mwvg069a0000w65RZTc0"],
    ledger_shares: [{ id: "le_0mwvg069a0000w65RZTc0", amount: -20 }],
  },
};

/** Every optional field, failed attempts, a task. */
const full: RequestLogEntry = {
  ...plain,
  status: 202,
  attempts: 2,
  upstream_attempts: [
    { channel_id: "ch_dead", url: null, outcome: "skipped", reason: "breaker_open" },
    { channel_id: "ch_busy", url: null, outcome: "skipped", reason: "retry_after" },
    {
      channel_id: "ch_a",
      url: null,
      outcome: "failed",
      error_class: "http_503",
      status: 503,
      error: "Service Unavailable",
      latency_ms: 3,
    },
    { channel_id: "ch_b", url: "https://b.example/v1/videos", outcome: "ok", latency_ms: 12 },
  ],
  usage_source: null,
  error_code: null,
  duration_reader: "ffprobe",
  captured: true,
  images: 2,
  billed_seconds: 5.5,
  ignored_fields: ["seed", "user"],
  task_id: "task_1",
  task_status: "succeeded",
  task_pending: true,
  truncated: true,
};

Deno.test("request-log record: the stored form reads back as the same entry, field order included", () => {
  for (const entry of [plain, full]) {
    const read = recordOf(storedRecord(entry));
    assertEquals(read, entry);
    assertEquals(JSON.stringify(read), JSON.stringify(entry));
  }
});

Deno.test("request-log record: records stored as objects read as they are; other values are none", () => {
  assertEquals(recordOf(structuredClone(plain)), plain);
  assertEquals(recordOf(null), null);
  assertEquals(recordOf("req_x"), null);
  assertEquals(recordOf([99, "req_x"]), null);
});

Deno.test("request-log record: a plain billed request fits SQLite's in-page payload", () => {
  // SQLite keeps about 1,000 bytes of key and value in a B-tree page of 4 KiB; past it, a record
  // takes an overflow page of its own. The object form of this record was past it.
  const stored = serialize(storedRecord(plain)).length;
  const asObject = serialize(plain).length;
  assertOk(asObject > 950, `the object form is ${asObject} bytes`);
  assertOk(stored < 800, `the stored form is ${stored} bytes`);
});
