import { assertEquals } from "../../helpers/assert.ts";
import { channelRecord } from "../../helpers/channel_record.ts";
import {
  afterFailedProbe,
  attemptVerdict,
  isAutoUsable,
  newMark,
  probeDelayMs,
  usableKeyIndexes,
} from "../../../core/channels/auto_disable.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import { keyByFingerprint, pickUpstreamKey } from "../../../core/channels/routing.ts";

Deno.test("auto-disable verdicts: only the channel's faults count, and 401/403 refuse the key", () => {
  assertEquals(attemptVerdict("ok"), "ok");
  assertEquals(attemptVerdict("failed", { status: 401, errorClass: "http_401" }), "key_refused");
  assertEquals(attemptVerdict("failed", { status: 403, errorClass: "http_403" }), "key_refused");
  for (const status of [500, 502, 503, 504, 524, 404, 408]) {
    assertEquals(
      attemptVerdict("failed", { status, errorClass: `http_${status}` }),
      "channel_fault",
    );
  }
  for (const errorClass of ["timeout", "connect_refused", "dns", "tls", "reset", "network"]) {
    assertEquals(attemptVerdict("failed", { errorClass }), "channel_fault", errorClass);
  }
  assertEquals(
    attemptVerdict("failed", { status: 200, errorClass: "bad_answer" }),
    "channel_fault",
  );
  for (const status of [400, 409, 413, 422, 429]) {
    assertEquals(attemptVerdict("failed", { status, errorClass: `http_${status}` }), "neither");
  }
  assertEquals(attemptVerdict("failed", { errorClass: "client_closed" }), "neither");
});

Deno.test("auto-disable probes: waits grow 30 s, 1 min, 2 min, 5 min, then 10 min", () => {
  assertEquals([0, 1, 2, 3, 4, 5, 9].map(probeDelayMs), [
    30_000,
    60_000,
    120_000,
    300_000,
    600_000,
    600_000,
    600_000,
  ]);
  const mark = newMark("refused", 1_000);
  assertEquals(mark.next_probe_at, 31_000);
  const later = afterFailedProbe(mark, 50_000);
  assertEquals([later.probes, later.next_probe_at], [1, 110_000]);
});

function channel(marks: Channel["auto_disabled"]): Channel {
  return channelRecord("ch_1", {
    name: "c",
    keys: ["k-a", "k-b"],
    fingerprints: new Map([["k-a", "aaaaaaaa"], ["k-b", "bbbbbbbb"]]),
    auto_disabled: marks,
  });
}

Deno.test("auto-disable routing: a marked key is never picked; a channel without keys left is skipped", () => {
  const mark = newMark("x", 0);
  const one = channel({ channel: null, by_key: { aaaaaaaa: mark } });
  assertEquals(usableKeyIndexes(one), [1]);
  for (const random of [0, 0.49, 0.99]) assertEquals(pickUpstreamKey(one, () => random), "k-b");
  assertEquals(isAutoUsable(one), true);
  // Narrowed to one key (as a probe or a breaker does), the map still names it.
  assertEquals(usableKeyIndexes({ ...one, keys: ["k-b"] }), [0]);
  assertEquals(usableKeyIndexes({ ...one, keys: ["k-a"] }), []);
  assertEquals(
    isAutoUsable(channel({ channel: null, by_key: { aaaaaaaa: mark, bbbbbbbb: mark } })),
    false,
  );
  assertEquals(isAutoUsable(channel({ channel: mark, by_key: {} })), false);
  assertEquals(isAutoUsable(channel(null)), true);
  assertEquals(keyByFingerprint(one, "bbbbbbbb"), "k-b");
  assertEquals(keyByFingerprint(one, "cccccccc"), undefined);
});
