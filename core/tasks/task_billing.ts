/** What a task's ledger entries did: held, settled, refunded, with their ids. */

import { billingOf, entriesOfRef, type RefBilling } from "../billing/ledger_audit.ts";
import type { TaskRecord } from "./task_record.ts";
import type { KvBackend } from "../kv/kv_backend.ts";

/** The billing of `task`, read from its wallet's ledger (the admin task view, webhook payloads). */
export async function taskBilling(
  kv: KvBackend,
  task: Pick<TaskRecord, "id" | "key_id" | "wallet_id" | "submit_time">,
): Promise<RefBilling> {
  const entries = await entriesOfRef(kv, {
    keyId: task.wallet_id ?? task.key_id,
    ref: task.id,
    // submit_time is in whole seconds; the hold is written after the record is made.
    sinceMs: task.submit_time * 1000 - 1000,
  });
  return billingOf(entries);
}
