import { assertEquals } from "../../helpers/assert.ts";
import { mapLimited } from "../../../core/util/map_limited.ts";

/** A task that stays under way until the test lets it end. */
function gatedWork() {
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const gates: Array<() => void> = [];
  const work = async (item: number) => {
    started.push(item);
    running++;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
    if (item < 0) throw new Error(`item ${item}`);
    return item * 10;
  };
  const releaseAll = async (done: Promise<unknown>) => {
    let settled = false;
    done.then(() => settled = true, () => settled = true);
    while (!settled) {
      gates.splice(0).forEach((open) => open());
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
  return { work, started, most: () => most, releaseAll };
}

Deno.test("mapLimited(): never more than the limit under way, results in order", async () => {
  const gated = gatedWork();
  const items = Array.from({ length: 20 }, (_, i) => i);
  const done = mapLimited(items, 3, gated.work);
  await gated.releaseAll(done);
  assertEquals(await done, items.map((item) => item * 10));
  assertEquals(gated.most(), 3);
  assertEquals(await mapLimited([], 3, gated.work), []);
});

Deno.test("mapLimited(): the first failure rejects, and nothing starts after it", async () => {
  const gated = gatedWork();
  const items = [0, 1, -2, 3, 4, 5, 6, 7];
  const done = mapLimited(items, 2, gated.work);
  await gated.releaseAll(done);
  const failure = await done.then(() => null, (error: Error) => error.message);
  assertEquals(failure, "item -2");
  // 0 and 1 ran first, then -2 and 3 took their places; -2 failed: 4 started beside it, no more.
  assertEquals(gated.started.length < items.length, true, gated.started.join());
});
