import { Deadline } from "../../../core/util/deadline.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("deadline: fires once its time passes without a touch, and then waits", async () => {
  let fired = 0;
  const { promise, resolve } = Promise.withResolvers<void>();
  const deadline = new Deadline(20, () => {
    fired++;
    resolve();
  });
  await promise;
  await sleep(60);
  assertEquals(fired, 1);
  deadline.stop();
});

Deno.test("deadline: touches push it back, past its first due time", async () => {
  let fired = false;
  const deadline = new Deadline(300, () => fired = true);
  const start = performance.now();
  let last = start;
  let longestGap = 0;
  while (performance.now() - start < 600) {
    await sleep(10);
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
    deadline.touch();
  }
  deadline.stop();
  // A machine that stalled this test longer than the deadline proves nothing either way.
  if (longestGap < 250) assertOk(!fired, "fired although touched");
});

Deno.test("deadline: a shorter time takes effect at once; a stopped one never fires", async () => {
  const { promise, resolve } = Promise.withResolvers<void>();
  const deadline = new Deadline(3_600_000, resolve);
  deadline.touch(5);
  await promise;
  let fired = false;
  const stopped = new Deadline(5, () => fired = true);
  stopped.stop();
  await sleep(40);
  assertOk(!fired);
});
