/** Usage rollups read back: all keys', or one key's read hour by hour. */

import { logEntry } from "../../helpers/request_log_entry.ts";
import { assertEquals } from "../../helpers/assert.ts";
import { addRollups, mergeUsageRows, readUsage } from "../../../core/telemetry/usage_rollups.ts";
import type { RequestLogEntry } from "../../../core/telemetry/request_log.ts";

const HOUR_MS = 3_600_000;

/** A request id made at `time` (`req_` + the time in 9 base-36 digits + a suffix). */
function idAt(time: number, n: number): string {
  return `req_${time.toString(36).padStart(9, "0")}${String(n).padStart(4, "0")}xxxxxxxxxx`;
}

function entry(time: number, n: number, keyId: string, model: string): RequestLogEntry {
  return logEntry({
    id: idAt(time, n),
    at: new Date(time).toISOString(),
    key_id: keyId,
    model,
    channel_id: "ch",
    cached_input_tokens: 0,
    cost: 7,
  });
}

Deno.test("readUsage() of one key reads that key's rollups only, over every hour of the range", async () => {
  using kv = await Deno.openKv(":memory:");
  const from = Math.floor(Date.parse("2026-11-20T00:00:00Z") / HOUR_MS) * HOUR_MS;
  const entries: RequestLogEntry[] = [];
  let n = 0;
  // 50 hours; key_a in some of them, the other keys in all of them.
  for (let hour = 0; hour < 50; hour++) {
    const time = from + hour * HOUR_MS + 60_000;
    if (hour % 7 === 0) entries.push(entry(time, n++, "key_a", "m1"));
    if (hour % 7 === 0) entries.push(entry(time, n++, "key_a", "m2"));
    for (const other of ["key_a1", "key_b", "key_"]) entries.push(entry(time, n++, other, "m1"));
  }
  for (let i = 0; i < entries.length; i += 20) {
    const atomic = kv.atomic();
    addRollups(atomic, entries.slice(i, i + 20));
    await atomic.commit();
  }
  const to = from + 50 * HOUR_MS;
  for (const interval of ["hour", "day"] as const) {
    const all = await readUsage(kv, { from, to, interval, groupBy: ["key", "model"] });
    const own = await readUsage(kv, {
      from,
      to,
      interval,
      groupBy: ["key", "model"],
      keyId: "key_a",
    });
    assertEquals(own, all.filter((row) => row.key_id === "key_a"));
    assertEquals(own.reduce((sum, row) => sum + row.requests, 0), 16);
  }
  // A range of one hour inside the data, and one past it.
  const one = await readUsage(kv, {
    from: from + 7 * HOUR_MS,
    to: from + 8 * HOUR_MS,
    interval: "hour",
    groupBy: ["model"],
    keyId: "key_a",
  });
  assertEquals(one.map((row) => [row.model, row.requests, row.cost]), [["m1", 1, 7], ["m2", 1, 7]]);
  assertEquals(
    await readUsage(kv, {
      from: to,
      to: to + HOUR_MS,
      interval: "hour",
      groupBy: [],
      keyId: "key_a",
    }),
    [],
  );
});

Deno.test("mergeUsageRows() sums rows of the same interval and group from several keys' reads", () => {
  const row = (start: string, model: string, requests: number, cost: number) => ({
    start,
    model,
    requests,
    input_tokens: requests * 10,
    cached_input_tokens: 0,
    output_tokens: requests,
    seconds: 0.5 * requests,
    images: 0,
    cost,
  });
  const merged = mergeUsageRows([
    row("2026-11-20T01:00:00.000Z", "b", 1, 3),
    row("2026-11-20T00:00:00.000Z", "a", 2, 5),
    row("2026-11-20T01:00:00.000Z", "b", 4, 7),
  ]);
  assertEquals(merged, [
    row("2026-11-20T00:00:00.000Z", "a", 2, 5),
    row("2026-11-20T01:00:00.000Z", "b", 5, 10),
  ]);
});
