/**
 * The KV conformance suite (kv_conformance.ts) against the backends the gateway runs on: the
 * embedded KV in memory and in a file, the same behind `countingKv` (bench's op counter), a
 * remote KV over KV Connect (the test server standing in for denokv) when it can be found, and
 * the PostgreSQL store on a real PostgreSQL server (tests/helpers/postgres.ts) when there is one.
 */

import { runKvConformance } from "./kv_conformance.ts";
import { countingKv } from "../../../core/kv/counting_kv.ts";
import { openPostgresKv } from "../../../core/kv/postgres/postgres_kv.ts";
import { STRICT } from "../../helpers/external_tools.ts";
import { testPostgres } from "../../helpers/postgres.ts";
import { findKvConnectServer, startKvConnectServer } from "../../helpers/kv_connect_server.ts";

runKvConformance("embedded, :memory:", () => Deno.openKv(":memory:"), { queues: true });

const dir = Deno.makeTempDirSync({ prefix: "kv_conformance_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
runKvConformance("embedded, file", () => Deno.openKv(`${dir}/conformance.kv`), { queues: true });

runKvConformance(
  "countingKv over :memory:",
  async () => countingKv(await Deno.openKv(":memory:"), () => {}),
  { queues: true },
);

const script = findKvConnectServer();
if (script) {
  const server = await startKvConnectServer(script);
  globalThis.addEventListener("unload", () => server.stop());
  Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
  runKvConformance("KV Connect test server", () => Deno.openKv(server.url));
} else {
  const reason = "the KV Connect test server (shared/tools/kv-connect-test-server.ts) was not " +
    "found beside the checkout: set GATEWAY_KV_CONNECT_SERVER to run these";
  console.log(`kv_conformance_test.ts: KV Connect tests ignored: ${reason}`);
  runKvConformance("KV Connect test server", () => Deno.openKv(":memory:"), { ignore: reason });
}

const postgres = await testPostgres();
if (postgres.server) {
  const url = await postgres.server.createStore();
  runKvConformance(
    postgres.server.version,
    () => openPostgresKv(url, { poolSize: 4, sweepEveryMs: 0 }),
    { sanitize: false },
  );
} else if (STRICT) {
  Deno.test("KV conformance (PostgreSQL): PostgreSQL is there", () => {
    throw new Error(`${postgres.reason}, and GATEWAY_TEST_STRICT=1`);
  });
} else {
  const count = runKvConformance("PostgreSQL", () => Deno.openKv(":memory:"), {
    ignore: postgres.reason,
  });
  console.log(`${count} postgresql tests ignored in kv_conformance_test.ts: ${postgres.reason}`);
}
