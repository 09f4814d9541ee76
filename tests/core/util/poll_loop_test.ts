/** The one poll loop of the task worker, the webhook worker and the sweeps. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { PollLoop } from "../../../core/util/poll_loop.ts";

const HOUR = 3_600_000;

/** A pass that waits to be let go, counting its runs and how many ran at once. */
function gatedPass() {
  let gate = Promise.withResolvers<void>();
  let started = Promise.withResolvers<void>();
  const state = { runs: 0, running: 0, most: 0 };
  return {
    state,
    pass: async () => {
      state.runs++;
      state.running++;
      state.most = Math.max(state.most, state.running);
      started.resolve();
      await gate.promise;
      state.running--;
    },
    /** Resolves once a pass has started since the last call. */
    async started() {
      await started.promise;
      started = Promise.withResolvers();
    },
    /** Lets the pass under way end. */
    release() {
      gate.resolve();
      gate = Promise.withResolvers();
    },
  };
}

Deno.test("PollLoop: a pass at start, another when woken, never two at once", async () => {
  const gated = gatedPass();
  const loop = new PollLoop({ pass: gated.pass, intervalMs: HOUR, onError: () => {} });
  loop.start();
  await gated.started();
  // Woken twice during a pass: one more pass right after it.
  loop.wake();
  loop.wake();
  gated.release();
  await gated.started();
  assertEquals(gated.state.runs, 2);
  gated.release();
  // Woken after that pass, it passes again without waiting its hour.
  loop.wake();
  await gated.started();
  gated.release();
  await loop.stop();
  assertEquals(gated.state.runs, 3);
  assertEquals(gated.state.most, 1);
});

Deno.test("PollLoop: again() asks for one more pass straight after the one under way", async () => {
  const gated = gatedPass();
  const loop = new PollLoop({ pass: gated.pass, intervalMs: HOUR, onError: () => {} });
  loop.start();
  await gated.started();
  loop.again();
  gated.release();
  await gated.started();
  gated.release();
  await loop.stop();
  assertEquals(gated.state.runs, 2);
});

Deno.test("PollLoop: a pass that throws is logged and the loop goes on", async () => {
  const errors: unknown[] = [];
  const logged = Promise.withResolvers<void>();
  let runs = 0;
  const second = Promise.withResolvers<void>();
  const loop = new PollLoop({
    pass: () => {
      runs++;
      if (runs === 1) return Promise.reject(new Error("kv unreachable"));
      second.resolve();
      return Promise.resolve();
    },
    intervalMs: HOUR,
    onError: (error) => {
      errors.push(error);
      logged.resolve();
    },
  });
  loop.start();
  await logged.promise;
  loop.wake();
  await second.promise;
  await loop.stop();
  assertEquals(errors.map((error) => (error as Error).message), ["kv unreachable"]);
  assertEquals(runs, 2);
});

Deno.test("PollLoop: stop waits for the pass under way, and no pass comes after", async () => {
  const gated = gatedPass();
  const loop = new PollLoop({ pass: gated.pass, intervalMs: HOUR, onError: () => {} });
  loop.start();
  await gated.started();
  let stopped = false;
  const stopping = loop.stop().then(() => stopped = true);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assertOk(!stopped, "stop returned while a pass ran");
  gated.release();
  await stopping;
  assertEquals(gated.state.running, 0);
  loop.wake();
  assertEquals(gated.state.runs, 1);
});

Deno.test("PollLoop: waitFirst; runNow runs before start and joins a pass under way", async () => {
  const gated = gatedPass();
  const tracked: Promise<unknown>[] = [];
  const loop = new PollLoop({
    pass: gated.pass,
    intervalMs: HOUR,
    onError: () => {},
    waitFirst: true,
    track: (work) => {
      tracked.push(work);
      return work;
    },
  });
  const first = loop.runNow();
  const joined = loop.runNow();
  await gated.started();
  gated.release();
  await Promise.all([first, joined]);
  assertEquals(gated.state.runs, 1);
  assertEquals(tracked.length, 1);
  // Started with its first pass an hour away: nothing runs until woken or stopped.
  loop.start();
  await loop.stop();
  assertEquals(gated.state.runs, 1);
});
