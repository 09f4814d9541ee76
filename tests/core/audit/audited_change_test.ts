import { assertEquals, assertRejects } from "../../helpers/assert.ts";
import { AuditLog } from "../../../core/audit/audit_log.ts";
import { auditedChange } from "../../../core/audit/audited_change.ts";
import { GatewayError } from "../../../core/errors.ts";

const LIST = { limit: 100, order: "asc" as const };

async function withLog(run: (audit: AuditLog, kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await run(new AuditLog(kv), kv);
  } finally {
    kv.close();
  }
}

const base = {
  actor: "console:sess_1" as const,
  clientAddress: "198.51.100.2",
  method: "PATCH",
  route: "/admin/things/:id",
};

Deno.test("auditedChange() records before and after read by id, without secrets", async () => {
  await withLog(async (audit) => {
    const things = new Map([["t1", { id: "t1", size: 1, secret: "s3cr3t" }]]);
    const answer = await auditedChange(audit, {
      ...base,
      target: { kind: "thing", id: "t1" },
      readTarget: (id) => things.get(id),
      apply: () => {
        things.set("t1", { id: "t1", size: 2, secret: "s3cr3t" });
        return Promise.resolve("done");
      },
    });
    assertEquals(answer, "done");
    const [record] = (await audit.list(LIST)).data;
    assertEquals(
      [record.actor, record.client_address, record.target, record.before, record.after],
      [
        "console:sess_1",
        "198.51.100.2",
        { kind: "thing", id: "t1" },
        { id: "t1", size: 1 },
        { id: "t1", size: 2 },
      ],
    );
    assertEquals([record.status, record.error_code], [200, null]);
  });
});

Deno.test("auditedChange() records a thrown GatewayError with its status and code, then rethrows", async () => {
  await withLog(async (audit) => {
    await assertRejects(() =>
      auditedChange(audit, {
        ...base,
        target: { kind: "thing", id: "t9" },
        readTarget: () => {
          throw new GatewayError("thing_not_found", 404, "No thing");
        },
        apply: () => Promise.reject(new GatewayError("thing_not_found", 404, "No thing")),
      })
    );
    const [record] = (await audit.list(LIST)).data;
    assertEquals([record.before, record.after, record.status, record.error_code], [
      null,
      null,
      404,
      "thing_not_found",
    ]);
  });
});

Deno.test("auditedChange() takes a create's id from its outcome, keeping no returned secret", async () => {
  await withLog(async (audit) => {
    await auditedChange(audit, {
      ...base,
      method: "POST",
      target: { kind: "thing", id: null },
      apply: () => Promise.resolve({ id: "t2", key: "shown-once" }),
      outcomeOf: (returned) => ({ status: 201, createdId: returned.id, returned }),
    });
    const [record] = (await audit.list(LIST)).data;
    assertEquals([record.target.id, record.before, record.after], ["t2", null, { id: "t2" }]);
  });
});

Deno.test("auditedChange() with skipUnchanged writes nothing when only updated_at moved", async () => {
  await withLog(async (audit) => {
    const things = new Map<string, { id: string; size: number; updated_at: string }>();
    const rewrite = (size: number) =>
      auditedChange(audit, {
        ...base,
        method: "PUT",
        target: { kind: "thing", id: "t3" },
        readTarget: (id) => things.get(id) ?? Promise.reject(new Error("absent")),
        apply: () => {
          things.set("t3", { id: "t3", size, updated_at: new Date().toISOString() });
          return Promise.resolve();
        },
        skipUnchanged: true,
      });
    await rewrite(1);
    await rewrite(1);
    await rewrite(2);
    const records = (await audit.list(LIST)).data;
    assertEquals(records.map((record) => (record.after as { size: number }).size), [1, 2]);
  });
});

Deno.test("AuditLog.list() skips records past the retention period", async () => {
  await withLog(async (audit, kv) => {
    await kv.set(["audit", "aud_000000001aaaa"], {
      id: "aud_000000001aaaa",
      at: "2020-01-01T00:00:00.000Z",
      actor: "admin_token",
      target: { kind: "key", id: "k" },
    });
    await auditedChange(audit, {
      ...base,
      target: { kind: "thing", id: null },
      apply: async () => {},
    });
    assertEquals((await audit.list(LIST)).data.map((record) => record.target.kind), ["thing"]);
  });
});
