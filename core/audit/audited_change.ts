/**
 * One audited change: read the target's public view, apply the change, read it again, and write
 * the record with the outcome. The admin API's middleware, the config file at boot and the
 * console all change records through this, so each change is recorded the same way.
 */

import { GatewayError } from "../errors.ts";
import type { AuditActor, AuditLog, AuditRecord, AuditTarget } from "./audit_log.ts";
import { stableJson, withoutSecrets } from "../util/without_secrets.ts";

/** How a change ended, as the audit record tells it. */
export interface ChangeOutcome {
  status: number;
  errorCode?: string | null;
  /** The id of the target the change made (a create), when the route named none. */
  createdId?: string | null;
  /** What the change answered, used as `after` when the target has no reader. */
  returned?: unknown;
}

export interface AuditedChange<T> {
  actor: AuditActor;
  clientAddress?: string | null;
  method: string;
  route: string;
  target: AuditTarget;
  requestId?: string | null;
  /** Reads the target's public view by id (the API's own service call); throws when absent. */
  readTarget?: (id: string) => Promise<unknown> | unknown;
  /** Makes the change. */
  apply: () => Promise<T>;
  /** How the change ended, from what `apply` gave (default: 200). */
  outcomeOf?: (result: T) => Promise<ChangeOutcome> | ChangeOutcome;
  /** Writes no record when the view did not change (the config file rewrites on every boot). */
  skipUnchanged?: boolean;
  /** Where a failure to write the record is reported (default: stderr as a JSON line). */
  onWriteError?: (error: unknown) => void;
}

async function readView(
  read: AuditedChange<unknown>["readTarget"],
  id: string | null,
): Promise<unknown> {
  if (!read || id === null) return null;
  try {
    return withoutSecrets(await read(id));
  } catch {
    return null; // absent (404) or unreadable: there is no view to keep
  }
}

function withoutTimes(view: unknown): string {
  if (!view || typeof view !== "object") return stableJson(view);
  const { updated_at: _updated, ...rest } = view as Record<string, unknown>;
  return stableJson(rest);
}

function reportWriteError(error: unknown): void {
  console.error(JSON.stringify({ msg: "audit record not written", error: String(error) }));
}

/**
 * Applies `change.apply` and records it; returns what it returned, or rethrows what it threw
 * (after recording the failure). The record is written after the change, not in its commit: a
 * write that fails is reported through `onWriteError` and does not undo the change.
 */
export async function auditedChange<T>(audit: AuditLog, change: AuditedChange<T>): Promise<T> {
  const before = await readView(change.readTarget, change.target.id);
  let outcome: ChangeOutcome;
  let result: T;
  try {
    result = await change.apply();
    outcome = change.outcomeOf ? await change.outcomeOf(result) : { status: 200 };
  } catch (error) {
    const failure = error instanceof GatewayError ? error : undefined;
    await write(audit, change, {
      before,
      after: null,
      outcome: { status: failure?.status ?? 500, errorCode: failure?.code ?? "internal_error" },
    });
    throw error;
  }
  const targetId = change.target.id ?? outcome.createdId ?? null;
  const succeeded = outcome.status >= 200 && outcome.status < 300;
  const after = !succeeded
    ? null
    : change.readTarget
    ? await readView(change.readTarget, targetId)
    : outcome.returned === undefined
    ? null
    : withoutSecrets(outcome.returned);
  if (!(change.skipUnchanged && withoutTimes(before) === withoutTimes(after))) {
    await write(audit, { ...change, target: { ...change.target, id: targetId } }, {
      before,
      after,
      outcome,
    });
  }
  return result;
}

type ChangeFacts = Pick<
  AuditedChange<unknown>,
  "actor" | "clientAddress" | "method" | "route" | "target" | "requestId" | "onWriteError"
>;

async function write(
  audit: AuditLog,
  change: ChangeFacts,
  { before, after, outcome }: { before: unknown; after: unknown; outcome: ChangeOutcome },
): Promise<AuditRecord | undefined> {
  try {
    return await audit.write({
      actor: change.actor,
      client_address: change.clientAddress ?? null,
      method: change.method,
      route: change.route,
      target: change.target,
      before,
      after,
      status: outcome.status,
      error_code: outcome.errorCode ?? null,
      request_id: change.requestId ?? null,
    });
  } catch (error) {
    (change.onWriteError ?? reportWriteError)(error);
    return undefined;
  }
}
