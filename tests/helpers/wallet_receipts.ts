/** The check every billing test ends with: a wallet moved by exactly what its receipts say. */

import { assertEquals, assertOk } from "./assert.ts";
import type { TestGateway } from "./gateway.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * Fails unless the key's wallet went down by exactly the sum of its requests' receipts (what each
 * receipt says the ledger took), its ledger entries sum to its balance, every answered request
 * was charged and no refused one was. Waits for the receipts written after the answers. Returns
 * the key's request records, oldest first.
 */
export async function walletMatchesReceipts(
  s: { gw: TestGateway; keyId: string; startBalance: number },
): Promise<Json[]> {
  for (let attempt = 0; attempt < 200; attempt++) {
    // The request log and the charges are written after the answers.
    await s.gw.settle();
    const listed = await s.gw.admin("GET", `/admin/requests?key=${s.keyId}&limit=1000&order=asc`);
    assertEquals(listed.status, 200, JSON.stringify(listed.body));
    const records: Json[] = listed.body.data;
    if (records.every((record) => record.status !== 200 || record.receipt)) {
      const balance = await s.gw.assertLedgerInvariant(s.keyId);
      const charged = records.reduce((sum, record) => sum + (record.receipt?.charged ?? 0), 0);
      assertEquals(
        s.startBalance - balance,
        charged,
        `the wallet moved by the receipts' sum (${s.startBalance} - ${balance} vs ${charged})`,
      );
      for (const record of records) {
        if (record.status === 200) assertOk(record.receipt.charged > 0, JSON.stringify(record));
        else assertOk(!record.receipt || record.receipt.charged === 0, JSON.stringify(record));
      }
      return records;
    }
  }
  throw new Error("the records have no receipts");
}
