/**
 * Fills a gateway's KV file with stored data before the gateway starts — keys, channels, finished
 * tasks and request-log records — written by the gateway's own stores (KeyStore, Registry,
 * writeTask, RequestLog), so the shapes, indexes and rollups are the real ones. The bench then
 * compares the throughput of a gateway on this file with one on an empty file.
 *
 *   deno run -A bench/stored_data.ts --kv=path --keys=10000 --records=1000000 --tasks=1000
 */

import { DEFAULT_OPTIONS, Gateway } from "../core/gateway.ts";
import { loadSecretBox } from "../core/channels/secret_box.ts";
import { keyInputSchema } from "../core/keys/key_schema.ts";
import { channelInputSchema } from "../core/channels/channel_schema.ts";
import { newTaskRecord, writeTask } from "../core/tasks/task_record.ts";
import type { RequestLogEntry } from "../core/telemetry/request_log.ts";
import { timeOrderedId } from "../core/util/ids.ts";

/** How much stored data to write. */
export interface StoredCounts {
  keys: number;
  channels: number;
  tasks: number;
  records: number;
}

/** `total` items cut into `[start, end)` ranges of at most `size`. */
export function rangesOf(total: number, size: number): Array<[number, number]> {
  if (!(size > 0)) throw new Error("rangesOf needs a positive size");
  const ranges: Array<[number, number]> = [];
  for (let start = 0; start < total; start += size) {
    ranges.push([start, Math.min(total, start + size)]);
  }
  return ranges;
}

/** The `index`th stored request-log record: a billed chat request of one of `keyIds`. */
export function storedLogRecord(
  index: number,
  options: { keyIds: readonly string[]; channelId: string; model: string },
): RequestLogEntry {
  const failed = index % 50 === 0;
  return {
    id: timeOrderedId("req"),
    at: new Date().toISOString(),
    interface: "openai",
    route: "/v1/chat/completions",
    key_id: options.keyIds[index % options.keyIds.length] ?? null,
    model: options.model,
    channel_id: options.channelId,
    status: failed ? 502 : 200,
    latency_ms: 120 + (index % 400),
    stream: index % 3 === 0,
    attempts: 1,
    upstream_attempts: [{
      channel_id: options.channelId,
      url: "https://upstream.example/v1/chat/completions",
      outcome: failed ? "failed" : "ok",
      ...(failed ? { error_class: "http_502" as const, status: 502 } : {}),
      latency_ms: 100 + (index % 400),
    }],
    input_tokens: failed ? 0 : 10 + (index % 90),
    cached_input_tokens: 0,
    output_tokens: failed ? 0 : 5 + (index % 200),
    usage_source: failed ? null : "upstream",
    cost: failed ? 0 : 1_000 + (index % 5_000),
    error_code: failed ? "upstream_error" : null,
    outcome: failed ? "upstream_error" : "completed",
  };
}

/** Writes `counts` of stored data into the KV file at `kvPath`; logs progress to stderr. */
export async function seedStoredData(kvPath: string, counts: StoredCounts): Promise<void> {
  const log = (message: string) => console.error(`[stored data] ${message}`);
  const kv = await Deno.openKv(kvPath);
  try {
    const box = await loadSecretBox(kvPath, undefined);
    const gateway = new Gateway(kv, box, { ...DEFAULT_OPTIONS, logRequestsToStdout: false });

    const channelIds: string[] = [];
    for (let i = 0; i < counts.channels; i++) {
      const created = await gateway.registry.createChannel(
        channelInputSchema.parse({
          name: `stored-${i}`,
          type: "openai",
          base_url: "https://upstream.example/v1",
          keys: [`sk-stored-${i}`],
          models: [`stored-model-${i % 10}`],
        }),
        { createModels: true },
      );
      channelIds.push(created.id);
    }
    log(`${counts.channels} channels`);

    const keyIds: string[] = [];
    for (const [start, end] of rangesOf(counts.keys, 50)) {
      const created = await Promise.all(
        Array.from({ length: end - start }, (_, i) =>
          gateway.keys.create(keyInputSchema.parse({
            name: `stored-${start + i}`,
            balance: 1_000_000,
          }))),
      );
      for (const key of created) keyIds.push(key.id);
    }
    log(`${counts.keys} keys`);

    // Finished tasks: stored and listed, never run again.
    for (const [start, end] of rangesOf(counts.tasks, 200)) {
      const atomic = kv.atomic();
      for (let i = start; i < end; i++) {
        const task = newTaskRecord({
          id: `task_stored_${i}`,
          kind: "image",
          action: "generations",
          owner: keyIds[i % keyIds.length] ?? "nobody",
          key_id: keyIds[i % keyIds.length] ?? "nobody",
          wallet_id: keyIds[i % keyIds.length] ?? "nobody",
          model: "gen-image-2",
          progress: "100%",
          held: 40_000,
          input: {},
        });
        writeTask(atomic, {
          previous: null,
          next: { ...task, status: "succeeded", cost: 40_000, finish_time: task.submit_time },
        });
      }
      if (!(await atomic.commit()).ok) throw new Error("task batch refused");
    }
    log(`${counts.tasks} tasks`);

    const channelId = channelIds[0] ?? "ch_stored";
    let written = 0;
    for (const [start, end] of rangesOf(counts.records, 5_000)) {
      for (let i = start; i < end; i++) {
        gateway.requestLog.record(
          storedLogRecord(i, { keyIds, channelId, model: "stored-model-0" }),
        );
      }
      await gateway.requestLog.flush();
      written = end;
      if (written % 100_000 === 0) log(`${written} request-log records`);
    }
    log(`${written} request-log records`);
  } finally {
    kv.close();
  }
}

function intArg(name: string, fallback: number): number {
  const found = Deno.args.find((value) => value.startsWith(`--${name}=`));
  const value = found === undefined ? fallback : Number(found.slice(name.length + 3));
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`);
  return value;
}

if (import.meta.main) {
  const kvArg = Deno.args.find((value) => value.startsWith("--kv="));
  if (!kvArg) throw new Error("missing --kv=<path of the KV file>");
  await seedStoredData(kvArg.slice(5), {
    keys: intArg("keys", 10_000),
    channels: intArg("channels", 20),
    tasks: intArg("tasks", 1_000),
    records: intArg("records", 1_000_000),
  });
}
