/**
 * The gateway as an operator runs it on PostgreSQL (`deno run main.ts` with
 * GATEWAY_KV=postgres://…): it boots on the store, says so, has no queues, serves, and stops on
 * SIGTERM; it refuses to boot without GATEWAY_SECRET_KEY, and says why when the server cannot be
 * reached.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { spawnGateway } from "../../helpers/gateway_process.ts";
import { postgresTests } from "../../helpers/postgres.ts";
import { refusedPort } from "../../helpers/refused_port.ts";

const pg = await postgresTests();
const SECRET_KEY = crypto.getRandomValues(new Uint8Array(32)).toBase64();

pg.test(
  "boot on PostgreSQL: no queues, serves, two instances share it, SIGTERM stops",
  async (url) => {
    const env = { GATEWAY_KV: url, GATEWAY_SECRET_KEY: SECRET_KEY, GATEWAY_ADMIN_TOKEN: "admin" };
    await using first = await spawnGateway(env);
    await using second = await spawnGateway(env);
    const platform = first.lines.map((line) => JSON.parse(line)).find((l) => l.msg === "platform");
    assertEquals([platform?.kv, platform?.queues], ["postgres", false], first.lines.join("\n"));
    const admin = { authorization: "Bearer admin", "content-type": "application/json" };
    const made = await fetch(`${first.url}/admin/keys`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "on postgres", balance: 1_234 }),
    });
    assertEquals(made.status, 201);
    const key = await made.json();
    const seen = await fetch(`${second.url}/admin/keys/${key.id}`, { headers: admin });
    assertEquals([seen.status, (await seen.json()).balance], [200, 1_234]);
    for (const gateway of [first, second]) {
      gateway.child.kill("SIGTERM");
      assertEquals((await gateway.child.status).code, 0, await gateway.stderr);
      assertOk(gateway.lines.some((line) => line.includes('"stopped"')), gateway.lines.join("\n"));
    }
  },
  { sanitizeOps: false, sanitizeResources: false },
);

pg.test("boot on PostgreSQL: without GATEWAY_SECRET_KEY it stops and names it", async (url) => {
  await using gateway = await spawnGateway({ GATEWAY_KV: url, GATEWAY_ADMIN_TOKEN: "admin" });
  assertEquals((await gateway.child.status).code, 1);
  const stderr = await gateway.stderr;
  assertOk(stderr.includes("GATEWAY_SECRET_KEY is required"), stderr);
}, { sanitizeOps: false, sanitizeResources: false });

Deno.test("boot on PostgreSQL: an unreachable server stops the boot with the reason", async () => {
  await using gateway = await spawnGateway({
    GATEWAY_KV: `postgres://gateway:hunter2@127.0.0.1:${refusedPort()}/gateway`,
    GATEWAY_SECRET_KEY: SECRET_KEY,
    GATEWAY_ADMIN_TOKEN: "admin",
  });
  assertEquals((await gateway.child.status).code, 1);
  const stderr = await gateway.stderr;
  assertOk(/Gateway failed to start: .*ECONNREFUSED/.test(stderr), stderr);
  assertOk(!stderr.includes("hunter2"), "the password is not printed");
});

pg.reportIgnored("boot_on_postgres_test.ts");
