import { assertEquals } from "../../helpers/assert.ts";
import { channelRecord } from "../../helpers/channel_record.ts";
import {
  eligibleChannels,
  planChannelOrder,
  upstreamModelName,
} from "../../../core/channels/routing.ts";

const channel = channelRecord;

Deno.test("planChannelOrder() puts the highest priority tier first", () => {
  const order = planChannelOrder([
    channel("low", { priority: 0 }),
    channel("high", { priority: 5 }),
  ]);
  assertEquals(order.map((c) => c.id), ["high", "low"]);
});

Deno.test("planChannelOrder() picks within a tier in proportion to weight", () => {
  const channels = [channel("a", { weight: 3 }), channel("b", { weight: 1 })];
  let firstIsA = 0;
  let seed = 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 4000; i++) if (planChannelOrder(channels, random)[0].id === "a") firstIsA++;
  const share = firstIsA / 4000;
  assertEquals(share > 0.7 && share < 0.8, true, `share of a was ${share}`);
});

Deno.test("planChannelOrder() never lists a channel twice", () => {
  const order = planChannelOrder([channel("a"), channel("b"), channel("c", { priority: 1 })]);
  assertEquals(new Set(order.map((c) => c.id)).size, 3);
});

Deno.test("eligibleChannels() skips disabled channels, other models and other groups", () => {
  const channels = [
    channel("ok"),
    channel("off", { enabled: false }),
    channel("other-model", { models: ["x"] }),
    channel("other-group", { groups: ["vip"] }),
  ];
  assertEquals(eligibleChannels(channels, { model: "m", group: "default" }).map((c) => c.id), [
    "ok",
  ]);
});

Deno.test("upstreamModelName() maps through model_map and defaults to the public id", () => {
  assertEquals(upstreamModelName(channel("a", { model_map: { m: "up-m" } }), "m"), "up-m");
  assertEquals(upstreamModelName(channel("a"), "m"), "m");
});
