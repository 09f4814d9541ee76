import { assertEquals, assertThrows } from "../helpers/assert.ts";
import { parseCounts, streamMemoryRow } from "../../bench/stream_memory.ts";

Deno.test("parseCounts() reads a comma list of positive whole numbers", () => {
  assertEquals(parseCounts("100, 1000,5000"), [100, 1000, 5000]);
  assertThrows(() => parseCounts("100,abc"));
  assertThrows(() => parseCounts("0"));
  assertThrows(() => parseCounts("1.5"));
});

Deno.test("streamMemoryRow() gives RSS of each server, difference, growth per stream and their ratio per round", () => {
  const row = streamMemoryRow(1000, [
    {
      gateway: { beforeMb: 100, openMb: 200, open: 1000 },
      forwarder: { beforeMb: 40, openMb: 90, open: 1000 },
      pump: { beforeMb: 40, openMb: 140, open: 1000 },
    },
    {
      gateway: { beforeMb: 110, openMb: 230, open: 1000 },
      forwarder: { beforeMb: 50, openMb: 110, open: 998 },
      pump: { beforeMb: 40, openMb: 160, open: 999 },
    },
  ]);
  assertEquals(row.open, 998);
  assertEquals(row.gatewayMb.median, 215);
  assertEquals(row.differenceMb.values, [110, 120]);
  assertEquals(row.gatewayKbPerStream.values, [102.4, 122.88]);
  assertEquals(row.forwarderKbPerStream.values[0], 51.2);
  assertEquals(row.growthRatio.values[0], 2);
  assertEquals(row.pumpMb.values, [140, 160]);
  assertEquals(row.pumpKbPerStream.values[0], 102.4);
});
