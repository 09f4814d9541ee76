/**
 * The breaker board on a real KV: routing costs no KV operation per request, an opening is written
 * once and seen by a second board on the same store after its refresh, the half-open probe is one
 * at a time across boards, and a key set aside leaves the channel's other keys in use.
 */

import { channelRecord } from "../../helpers/channel_record.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { BreakerBoard } from "../../../core/channels/breaker_board.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import { countingKv } from "../../../core/kv/counting_kv.ts";

function channel(id: string, keys = ["sk-one"]): Channel {
  return channelRecord(id, { base_url: "http://upstream.test/v1", keys });
}

const refused = { reason: "connect_refused", refused: false, rateLimited: false };

Deno.test("breaker board: a closed channel costs no KV operation per request", async () => {
  const ops: string[] = [];
  const kv = countingKv(await Deno.openKv(":memory:"), (op) => ops.push(op));
  try {
    const board = new BreakerBoard(kv, { instanceId: "a" });
    const ch = channel("ch_a");
    await board.refresh();
    ops.length = 0;
    for (let i = 0; i < 500; i++) {
      const pass = await board.admit(ch);
      assertEquals(pass.kind, "use");
      if (pass.kind === "use") board.succeeded(pass, ch);
    }
    await board.flush();
    // At most the periodic refresh (one list a second), started by a request, never awaited.
    assertOk(ops.every((op) => op === "list") && ops.length <= 1, ops.join(","));
  } finally {
    kv.close();
  }
});

Deno.test("breaker board: an opening is written once and seen by another instance", async () => {
  const ops: string[] = [];
  const kv = countingKv(await Deno.openKv(":memory:"), (op) => ops.push(op));
  try {
    let now = 1_000_000;
    const a = new BreakerBoard(kv, { instanceId: "a", now: () => now });
    const b = new BreakerBoard(kv, { instanceId: "b", now: () => now });
    const ch = channel("ch_dead");
    for (let i = 0; i < 5; i++) {
      const pass = await a.admit(ch);
      if (pass.kind === "use") a.failed(pass, ch, refused);
    }
    await a.flush();
    assertEquals(ops.filter((op) => op === "set").length, 1);
    assertEquals((await a.admit(ch)).kind, "skip");
    await b.refresh();
    assertEquals(await b.admit(ch), { kind: "skip", reason: "breaker_open", until: now + 10_000 });

    // Half-open: one probe across both instances.
    now += 10_000;
    const probe = await a.admit(ch);
    assertEquals(probe.kind === "use" && probe.probes.length, 1);
    assertEquals((await b.admit(ch)).kind, "skip");
    if (probe.kind === "use") a.succeeded(probe, ch);
    await a.flush();
    await b.refresh();
    assertEquals((await b.admit(ch)).kind, "use");
    assertEquals((await b.view(ch)).state, "closed");
  } finally {
    kv.close();
  }
});

Deno.test("breaker board: a refused key is set aside; the channel's other key serves", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const board = new BreakerBoard(kv, { instanceId: "a", now: () => 0 });
    const ch = channel("ch_two", ["sk-revoked", "sk-good"]);
    let revoked: string | undefined;
    for (let i = 0; i < 20 && !revoked; i++) {
      const pass = await board.admit(ch);
      if (pass.kind === "use" && pass.channel.keys[0] === "sk-revoked") {
        board.failed(pass, ch, { reason: "http_401", refused: true, rateLimited: false });
        revoked = pass.key;
      }
    }
    assertOk(revoked, "the revoked key was picked at least once in 20");
    for (let i = 0; i < 20; i++) {
      const pass = await board.admit(ch);
      assertEquals(pass.kind === "use" && pass.channel.keys, ["sk-good"]);
    }
    const view = await board.view(ch);
    assertEquals(view.state, "closed");
    assertEquals(view.keys.find((key) => key.fingerprint === revoked)?.state, "open");
    assertEquals(await board.reset("ch_two", revoked), [revoked]);
    assertEquals((await board.view(ch)).keys.every((key) => key.state === "closed"), true);
  } finally {
    kv.close();
  }
});
