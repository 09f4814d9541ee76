/** Where the gateway thinks it runs, from the environment and its permissions, and what follows. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { detectPlatform } from "../../core/platform.ts";
import { readSettings } from "../../core/settings.ts";
import { checkServerless, kvTarget } from "../../main.ts";

/** A permission query that grants what `granted` names (`write`, `run`). */
function permissions(...granted: string[]) {
  return (descriptor: Deno.PermissionDescriptor) =>
    ({ state: granted.includes(descriptor.name) ? "granted" : "prompt" }) as Deno.PermissionStatus;
}

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("detectPlatform: Deno Deploy, a process without writes, a long-lived process", () => {
  const deploy = detectPlatform(env({ DENO_DEPLOYMENT_ID: "abc123" }), {
    ffprobePath: "ffprobe",
    query: permissions("write", "run"),
  });
  assertEquals([deploy.serverless, deploy.runFfprobe], [true, false]);
  assertOk(deploy.reason.includes("abc123"), deploy.reason);
  // Deploy's own flag, without the id.
  assertEquals(
    detectPlatform(env({ DENO_DEPLOY: "true" }), { ffprobePath: "ffprobe", query: permissions() })
      .serverless,
    true,
  );
  // Deploy's permissions (net, env, read): no writes, no subprocess.
  const readOnly = detectPlatform(env({}), { ffprobePath: "ffprobe", query: permissions() });
  assertEquals([readOnly.serverless, readOnly.tempFiles, readOnly.runFfprobe], [
    true,
    false,
    false,
  ]);
  assertOk(readOnly.reason.includes("no write permission"), readOnly.reason);
  const full = detectPlatform(env({}), {
    ffprobePath: "ffprobe",
    query: permissions("write", "run"),
  });
  assertEquals([full.serverless, full.tempFiles, full.runFfprobe], [false, true, true]);
  // Writes but no subprocess: a long-lived process that reads durations in process.
  const noRun = detectPlatform(env({}), { ffprobePath: "ffprobe", query: permissions("write") });
  assertEquals([noRun.serverless, noRun.runFfprobe], [false, false]);
});

Deno.test("detectPlatform: asks for the temp dir and the ffprobe binary by name", () => {
  const asked: string[] = [];
  detectPlatform(env({ TMPDIR: "/scratch" }), {
    ffprobePath: "/opt/ff/ffprobe",
    query: (descriptor) => {
      asked.push(JSON.stringify(descriptor));
      return { state: "granted" } as Deno.PermissionStatus;
    },
  });
  assertEquals(asked, [
    JSON.stringify({ name: "write", path: "/scratch" }),
    JSON.stringify({ name: "run", command: "/opt/ff/ffprobe" }),
  ]);
});

const SERVERLESS = {
  serverless: true,
  reason: "on Deno Deploy",
  tempFiles: false,
  runFfprobe: false,
};
const LONG_LIVED = { serverless: false, reason: "here", tempFiles: true, runFfprobe: true };

Deno.test("kvTarget: the platform's KV on Deploy when GATEWAY_KV is unset, a file elsewhere", () => {
  assertEquals(kvTarget(undefined, SERVERLESS), { kind: "platform" });
  assertEquals(kvTarget(undefined, LONG_LIVED), { kind: "file", path: "./data/gateway.kv" });
  assertEquals(kvTarget(":memory:", SERVERLESS), { kind: "memory" });
  assertEquals(kvTarget("https://kv.example/db", SERVERLESS), {
    kind: "remote",
    url: "https://kv.example/db",
  });
  assertEquals(kvTarget("/var/lib/gw.kv", LONG_LIVED), { kind: "file", path: "/var/lib/gw.kv" });
});

Deno.test("kvTarget: a postgres:// or postgresql:// URL is the PostgreSQL store", () => {
  for (
    const url of ["postgres://gw:pw@db:5432/gateway", "postgresql://db/gateway?sslmode=require"]
  ) {
    assertEquals(kvTarget(url, LONG_LIVED), { kind: "postgres", url });
    assertEquals(kvTarget(url, SERVERLESS), { kind: "postgres", url });
  }
});

Deno.test("checkServerless: GATEWAY_SECRET_KEY and GATEWAY_ADMIN_TOKEN required, named", () => {
  const settings = (vars: Record<string, string>) => readSettings(env(vars));
  const failure = (vars: Record<string, string>, target = kvTarget(undefined, SERVERLESS)) => {
    try {
      checkServerless(settings(vars), SERVERLESS, target);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  };
  const both = failure({});
  assertOk(both?.startsWith("GATEWAY_SECRET_KEY and GATEWAY_ADMIN_TOKEN must be set"), both!);
  assertOk(both?.includes("on Deno Deploy"), both!);
  const one = failure({ GATEWAY_SECRET_KEY: "k" });
  assertOk(one?.startsWith("GATEWAY_ADMIN_TOKEN must be set"), one!);
  const secrets = { GATEWAY_SECRET_KEY: "k", GATEWAY_ADMIN_TOKEN: "t" };
  assertEquals(failure(secrets), null);
  const file = failure(secrets, { kind: "file", path: "./data/gateway.kv" });
  assertOk(file?.includes("GATEWAY_KV names a file"), file!);
  // A long-lived process needs neither.
  checkServerless(settings({}), LONG_LIVED, kvTarget(undefined, LONG_LIVED));
});

Deno.test("settings: the PostgreSQL pool size and statement timeout, with defaults", () => {
  const read = (env: Record<string, string>) => readSettings((name) => env[name]);
  assertEquals([read({}).pgPoolSize, read({}).pgStatementTimeoutMs], [10, 10_000]);
  const set = read({ GATEWAY_PG_POOL: "25", GATEWAY_PG_STATEMENT_TIMEOUT_MS: "2500" });
  assertEquals([set.pgPoolSize, set.pgStatementTimeoutMs], [25, 2_500]);
  const bads: Record<string, string>[] = [
    { GATEWAY_PG_POOL: "0" },
    { GATEWAY_PG_STATEMENT_TIMEOUT_MS: "soon" },
  ];
  for (const bad of bads) {
    let refused = "";
    try {
      read(bad);
    } catch (error) {
      refused = (error as Error).message;
    }
    assertOk(refused.includes(Object.keys(bad)[0]), refused);
  }
});

Deno.test("secret key: required with PostgreSQL, which has no file to keep one beside", async () => {
  const { loadSecretBox } = await import("../../core/channels/secret_box.ts");
  const refused = await loadSecretBox("postgres://db/gateway").then(() => "", (e) => e.message);
  assertOk(/GATEWAY_SECRET_KEY is required/.test(refused), refused);
});
