import { assertEquals } from "../../helpers/assert.ts";
import {
  admission,
  afterFailure,
  afterSuccess,
  type Breaker,
  breakerPhase,
  type BreakerSettings,
  closedBreaker,
  DEFAULT_BREAKER_SETTINGS,
  setAside,
} from "../../../core/channels/breakers.ts";

const settings: BreakerSettings = DEFAULT_BREAKER_SETTINGS;
const fault = { reason: "connect_refused" };

function fail(breaker: Breaker, times: number, now: number): Breaker {
  for (let i = 0; i < times; i++) breaker = afterFailure(breaker, fault, settings, now);
  return breaker;
}

function succeed(breaker: Breaker, times: number, now: number): Breaker {
  for (let i = 0; i < times; i++) breaker = afterSuccess(breaker, settings, now);
  return breaker;
}

Deno.test("breaker: opens at 5 failures that are half of the window, not before", () => {
  let breaker = fail(closedBreaker(), 4, 0);
  assertEquals(breakerPhase(breaker, 0), "closed");
  breaker = fail(breaker, 1, 0);
  assertEquals(breakerPhase(breaker, 0), "open");
  assertEquals(breaker.open_until, 10_000);
  assertEquals(breaker.reasons.map((r) => r.reason), ["connect_refused"]);
});

Deno.test("breaker: 5 failures among 20 attempts (25 %) keep it closed", () => {
  let breaker = succeed(closedBreaker(), 20, 0);
  breaker = fail(breaker, 5, 0);
  assertEquals(breakerPhase(breaker, 0), "closed");
  // Five more failures: 10 of the last 20 → 50 %.
  breaker = fail(breaker, 5, 0);
  assertEquals(breakerPhase(breaker, 0), "open");
});

Deno.test("breaker: a refused key opens at once", () => {
  const breaker = afterFailure(
    closedBreaker(),
    { reason: "http_401", immediate: true },
    settings,
    100,
  );
  assertEquals(admission(breaker, 100), { kind: "skip", reason: "breaker_open", until: 10_100 });
});

Deno.test("breaker: cooldowns grow 10 s, 30 s, 2 min, 10 min, then stay at 10 min", () => {
  let breaker = fail(closedBreaker(), 5, 0);
  const cooldowns = [breaker.open_until! - 0];
  let now = 0;
  for (let i = 0; i < 5; i++) {
    now = breaker.open_until!;
    assertEquals(admission(breaker, now), { kind: "probe" });
    breaker = afterFailure(breaker, fault, settings, now); // the probe failed
    cooldowns.push(breaker.open_until! - now);
  }
  assertEquals(cooldowns, [10_000, 30_000, 120_000, 600_000, 600_000, 600_000]);
});

Deno.test("breaker: open skips, half-open lets a probe through, its success closes", () => {
  let breaker = fail(closedBreaker(), 5, 0);
  assertEquals(admission(breaker, 9_999).kind, "skip");
  assertEquals(breakerPhase(breaker, 10_000), "half_open");
  assertEquals(admission(breaker, 10_000), { kind: "probe" });
  breaker = afterSuccess(breaker, settings, 10_000);
  assertEquals(breakerPhase(breaker, 10_000), "closed");
  assertEquals(breaker.openings, 0);
  // Closed again, it counts from an empty window: one failure does not reopen it.
  breaker = fail(breaker, 1, 10_000);
  assertEquals(breakerPhase(breaker, 10_000), "closed");
});

Deno.test("breaker: failures while open change nothing", () => {
  const open = fail(closedBreaker(), 5, 0);
  assertEquals(fail(open, 3, 5_000), open);
});

Deno.test("breaker: a retry-after sets it aside until then, whatever its state", () => {
  const aside = setAside(closedBreaker(), 30_000, "retry_after", 0);
  assertEquals(admission(aside, 29_999), { kind: "skip", reason: "retry_after", until: 30_000 });
  assertEquals(admission(aside, 30_000), { kind: "pass" });
  // A later, shorter retry-after does not shorten it.
  assertEquals(setAside(aside, 5_000, "retry_after", 1).aside_until, 30_000);
});

Deno.test("breaker: a channel's own settings (min 2 of a window of 4, 1 s cooldown)", () => {
  const own: BreakerSettings = {
    min_failures: 2,
    failure_rate: 0.5,
    window: 4,
    cooldowns_ms: [1_000],
  };
  let breaker = afterSuccess(closedBreaker(), own, 0);
  breaker = afterSuccess(breaker, own, 0);
  breaker = afterFailure(breaker, fault, own, 0);
  assertEquals(breakerPhase(breaker, 0), "closed");
  breaker = afterFailure(breaker, fault, own, 0);
  assertEquals(breakerPhase(breaker, 0), "open");
  assertEquals(breaker.open_until, 1_000);
});

Deno.test("breaker: successes on a closed breaker with a full clean window allocate nothing", () => {
  const clean = succeed(closedBreaker(), 20, 0);
  assertEquals(afterSuccess(clean, settings, 0) === clean, true);
});
