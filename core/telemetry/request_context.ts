/** One client request's accounting: its id, key, timing, and the one log line it ends with. */

import type { Metrics } from "./metrics.ts";
import type { RequestLog } from "./request_log.ts";
import type { KeyRecord } from "../keys/key_schema.ts";
import type { RequestLogEntry } from "./request_log_entry.ts";
import type { TokenUsage, UsageSource } from "../billing/usage.ts";
import type { ClientInterface } from "../keys/credentials.ts";
import type { AttemptRecord } from "./request_log_entry.ts";
import type { Receipt } from "../billing/receipt.ts";
import { mediaInterfaceName } from "./interface_name.ts";

export interface RequestResult {
  status: number;
  channelId?: string | null;
  usage?: TokenUsage;
  usageSource?: UsageSource;
  cost?: number;
  errorCode?: string | null;
  outcome?: string;
  images?: number;
  billedSeconds?: number;
  receipt?: Receipt;
}

/** Where a finished request is reported. */
export interface Telemetry {
  requestLog: RequestLog;
  metrics: Metrics;
}

/** Carries a request through the gateway and logs it once when it ends. */
export class RequestContext {
  readonly id: string;
  readonly interface: ClientInterface;
  /** The matched route's template (set once routing is done). */
  route: string;
  readonly startedAt = performance.now();
  key: KeyRecord | null = null;
  model: string | null = null;
  stream = false;
  /** What read the reference media durations of a video request, when any were read. */
  durationReader: string | null = null;
  /** Every upstream attempt, in order; the failover helper appends to it. */
  readonly upstreamAttempts: AttemptRecord[] = [];
  /** Request fields the channel could not honour, as the answer named them. */
  ignoredFields: string[] = [];
  /** A task the request made: its record is completed when the task ends. */
  task: { id: string; receipt: Receipt } | null = null;
  /** Set when the route's own work logs the request when it ends (after the response). */
  logsLater = false;
  /** Set when the request's bodies are captured (see body_capture.ts). */
  captured = false;
  #logged = false;
  readonly #telemetry: Telemetry;
  readonly #nameOf: (route: string) => string;

  /**
   * `nameOf` names the interface in the record by the matched route (default: a media route's
   * name, else the family).
   */
  constructor(
    request: {
      id: string;
      interface: ClientInterface;
      route: string;
      nameOf?: (route: string) => string;
    },
    telemetry: Telemetry,
  ) {
    this.id = request.id;
    this.interface = request.interface;
    this.route = request.route;
    this.#nameOf = request.nameOf ??
      ((route) => mediaInterfaceName(request.interface, route) ?? request.interface);
    this.#telemetry = telemetry;
  }

  /** Logs the request and counts it in metrics. Only the first call counts. */
  finish(result: RequestResult): void {
    this.finishLater(result)();
  }

  /**
   * Ends the request's clock now — its latency and time are the answer's — and returns how to
   * log it once its bill is written, with the bill's `cost` and `receipt`: an aggregated charge
   * is written up to a flush interval after the answer, and that wait is not the request's.
   * The rest of the entry is read when it is logged (the route, for one, is named after the
   * handler returns). Only the first call counts.
   */
  finishLater(result: RequestResult): (billed?: Pick<RequestResult, "cost" | "receipt">) => void {
    if (this.#logged) return () => {};
    this.#logged = true;
    const ended = { at: new Date().toISOString(), latencyMs: performance.now() - this.startedAt };
    return (billed) => this.#log(ended, billed ? { ...result, ...billed } : result);
  }

  #log(ended: { at: string; latencyMs: number }, result: RequestResult): void {
    const clientInterface = this.#nameOf(this.route);
    const entry: RequestLogEntry = {
      id: this.id,
      at: ended.at,
      interface: clientInterface,
      route: this.route,
      key_id: this.key?.id ?? null,
      ...(this.key?.account_id && { account_id: this.key.account_id }),
      model: this.model,
      channel_id: result.channelId ??
        this.upstreamAttempts.findLast((attempt) => attempt.outcome !== "skipped")?.channel_id ??
        null,
      status: result.status,
      latency_ms: Math.round(ended.latencyMs * 100) / 100,
      stream: this.stream,
      attempts: this.upstreamAttempts.filter((attempt) => attempt.outcome !== "skipped").length,
      upstream_attempts: this.upstreamAttempts,
      input_tokens: result.usage?.input_tokens ?? 0,
      cached_input_tokens: result.usage?.cached_input_tokens ?? 0,
      output_tokens: result.usage?.output_tokens ?? 0,
      usage_source: result.usageSource ?? null,
      cost: result.cost ?? 0,
      error_code: result.errorCode ?? null,
      outcome: result.outcome ?? (result.status < 400 ? "completed" : "error"),
      ...(this.durationReader ? { duration_reader: this.durationReader } : {}),
      ...(this.captured ? { captured: true as const } : {}),
      ...(result.images ? { images: result.images } : {}),
      ...(result.billedSeconds ? { billed_seconds: result.billedSeconds } : {}),
      ...(this.ignoredFields.length ? { ignored_fields: this.ignoredFields } : {}),
      ...(result.receipt ? { receipt: result.receipt } : {}),
      ...(this.task && result.status < 400
        ? { task_id: this.task.id, task_pending: true as const, receipt: this.task.receipt }
        : {}),
    };
    this.#telemetry.requestLog.record(entry);
    const labels = { interface: clientInterface, route: this.route, status: String(result.status) };
    this.#telemetry.metrics.add("gateway_requests_total", labels);
    this.#telemetry.metrics.add("gateway_request_seconds_total", labels, ended.latencyMs / 1000);
    if (entry.cost) {
      this.#telemetry.metrics.add(
        "gateway_cost_units_total",
        { model: this.model ?? "" },
        entry.cost,
      );
    }
  }
}
