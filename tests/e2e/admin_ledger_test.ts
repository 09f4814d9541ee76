/** Admin ledger end to end: a key's entries verified against its balance, stated. */

import { assertEquals } from "../helpers/assert.ts";
import { assertAdminError } from "../helpers/admin_error.ts";
import { openStore, serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";
import { kvKeys } from "../../core/kv/kv_keys.ts";

Deno.test(
  "admin ledger verify: the entries sum to the balance after credits and requests; a broken balance is not ok",
  serverTest,
  async () => {
    await using s = await setupChat();
    await s.gw.admin("POST", `/admin/keys/${s.keyId}/credit`, { amount: 2_500 });
    for (let i = 0; i < 3; i++) {
      await s.client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: `hello ${i}` }],
      });
    }
    await s.gw.settle();
    const entries = await s.gw.ledger(s.keyId);
    const balance = await s.gw.balance(s.keyId);
    const verified = await s.gw.admin("GET", `/admin/keys/${s.keyId}/ledger/verify`);
    assertEquals(verified.status, 200, JSON.stringify(verified.body));
    assertEquals(verified.body, {
      key_id: s.keyId,
      wallet_id: s.keyId,
      balance,
      entries_sum: entries.reduce((sum, entry) => sum + entry.amount, 0),
      entries: entries.length,
      ok: true,
      holds_open: 0,
      held_open: 0,
      leases_open: 0,
      leased_open: 0,
    });

    // A balance changed behind the ledger's back is found out.
    using kv = await openStore(s.gw.kvPath);
    await kv.set(kvKeys.balance(s.keyId), balance + 1);
    const broken = (await s.gw.admin("GET", `/admin/keys/${s.keyId}/ledger/verify`)).body;
    assertEquals([broken.ok, broken.balance, broken.entries_sum], [false, balance + 1, balance]);
  },
);

Deno.test("admin ledger verify: an unknown key is 404", serverTest, async () => {
  await using s = await setupChat();
  for (const id of ["key_nonexistent", "not-a-key"]) {
    assertAdminError(
      await s.gw.admin("GET", `/admin/keys/${id}/ledger/verify`),
      404,
      "key_not_found",
    );
  }
});
