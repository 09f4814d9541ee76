/**
 * An upstream whose `usage` lies (floats, strings, negatives, missing, partial, absurd) never
 * leaves a hold open, never bills 0 for a delivered answer and never settles above the hold.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { MODEL, setupChat } from "../../helpers/text_setup.ts";
import { startHostileUpstream } from "../../upstream/hostile.ts";

const ask = { model: MODEL, messages: [{ role: "user", content: "hello there" }], max_tokens: 50 };

function completion(usage: unknown) {
  return {
    id: "chatcmpl-lie",
    object: "chat.completion",
    created: 1,
    model: "sim",
    choices: [{
      index: 0,
      message: { role: "assistant", content: "A perfectly normal answer." },
      finish_reason: "stop",
    }],
    ...(usage === undefined ? {} : { usage }),
  };
}

const LIES: Array<[string, unknown]> = [
  ["floats", { prompt_tokens: 10.5, completion_tokens: 7.25, total_tokens: 17.75 }],
  ["strings", { prompt_tokens: "10", completion_tokens: "7", total_tokens: "17" }],
  ["negatives", { prompt_tokens: -10, completion_tokens: -7, total_tokens: -17 }],
  ["an empty object", {}],
  ["only total_tokens", { total_tokens: 17 }],
  ["no usage at all", undefined],
  ["zero output for a delivered answer", { prompt_tokens: 10, completion_tokens: 0 }],
];

for (const [label, usage] of LIES) {
  Deno.test(
    `usage lies: ${label} is replaced by the estimate, billed above 0, hold closed`,
    serverTest,
    async () => {
      await using s = await setupChat();
      await using hostile = startHostileUpstream({ kind: "json", body: completion(usage) });
      const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
      for (const channel of channels) await s.gw.admin("DELETE", `/admin/channels/${channel.id}`);
      await s.gw.addChannel({ name: "liar", base_url: hostile.baseUrl, models: [MODEL] });
      const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
      assertEquals(response.status, 200);
      await response.body?.cancel();
      await s.gw.settle();
      const record = (await s.gw.admin("GET", "/admin/requests?limit=1")).body.data[0];
      assertEquals(record.usage_source, "estimate");
      assertOk(Number.isSafeInteger(record.cost) && record.cost > 0, `cost ${record.cost}`);
      const entries = await s.gw.ledger(s.keyId);
      assertEquals(entries.map((entry) => entry.type), [
        "credit",
        "lease",
        "charge",
        "lease_return",
      ]);
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - record.cost);
    },
  );
}

Deno.test(
  "usage lies: an absurd count is not believed, and no settle exceeds the hold",
  serverTest,
  async () => {
    // A spend cap makes the request hold in the ledger, so the hold can be read back.
    await using s = await setupChat({ key: { spend_limits: { month: 10_000_000 } } });
    await using hostile = startHostileUpstream({
      kind: "json",
      body: completion({ prompt_tokens: 9_000_000_000, completion_tokens: 5_000_000_000 }),
    });
    const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
    for (const channel of channels) await s.gw.admin("DELETE", `/admin/channels/${channel.id}`);
    await s.gw.addChannel({ name: "liar", base_url: hostile.baseUrl, models: [MODEL] });
    const response = await postJson(s.gw, "/v1/chat/completions", s.key, ask);
    assertEquals(response.status, 200);
    await response.body?.cancel();
    await s.gw.settle();
    const entries = await s.gw.ledger(s.keyId);
    const held = -entries.find((entry) => entry.type === "hold")!.amount;
    const settle = entries.find((entry) => entry.type === "settle")!;
    assertOk(settle.cost! <= held, `settled ${settle.cost} above the hold ${held}`);
    const record = (await s.gw.admin("GET", "/admin/requests?limit=1")).body.data[0];
    assertEquals(record.usage_source, "estimate");
    assertOk(await s.gw.balance(s.keyId) > 9_000_000, "the key was not drained");
  },
);

Deno.test(
  "usage lies: a stream whose final usage is garbage is billed by the estimate, hold closed",
  serverTest,
  async () => {
    await using s = await setupChat();
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${
        JSON.stringify({
          id: "c1",
          object: "chat.completion.chunk",
          created: 1,
          model: "sim",
          choices: [{ index: 0, delta, finish_reason: null }],
          ...extra,
        })
      }\n\n`;
    await using hostile = startHostileUpstream({
      kind: "stream",
      events: [
        chunk({ role: "assistant", content: "Streamed " }),
        chunk({ content: "answer." }),
        `data: ${
          JSON.stringify({
            id: "c1",
            object: "chat.completion.chunk",
            created: 1,
            model: "sim",
            choices: [],
            usage: { prompt_tokens: "lots", completion_tokens: 1.5 },
          })
        }\n\n`,
        "data: [DONE]\n\n",
      ],
    });
    const channels = (await s.gw.admin("GET", "/admin/channels")).body.data;
    for (const channel of channels) await s.gw.admin("DELETE", `/admin/channels/${channel.id}`);
    await s.gw.addChannel({ name: "liar", base_url: hostile.baseUrl, models: [MODEL] });
    const response = await postJson(s.gw, "/v1/chat/completions", s.key, { ...ask, stream: true });
    assertEquals(response.status, 200);
    const text = await response.text();
    assertOk(text.includes("answer."), text);
    await s.gw.settle();
    const record = (await s.gw.admin("GET", "/admin/requests?limit=1")).body.data[0];
    assertEquals(record.usage_source, "estimate");
    assertOk(record.cost > 0);
    const types = (await s.gw.ledger(s.keyId)).map((entry) => entry.type);
    assertEquals(types, ["credit", "lease", "charge", "lease_return"]);
  },
);
