/**
 * Runs e2e test modules again with their gateways on PostgreSQL: `runOnPostgres` puts this
 * module's test gateways, in process or spawned, on a real PostgreSQL server
 * (tests/helpers/test_store.ts `useTestStore`)
 * and imports the modules, whose tests are registered with "[PostgreSQL] " before their names.
 * Without PostgreSQL one ignored test per module is registered and a line says why; with
 * GATEWAY_TEST_STRICT=1 they fail instead.
 */

import { STRICT } from "./external_tools.ts";
import { useTestStore } from "./test_store.ts";
import { testPostgres } from "./postgres.ts";

const PREFIX = "[PostgreSQL] ";

/** The test definition of any of Deno.test's call forms. */
function definitionOf(args: unknown[]): Deno.TestDefinition {
  const [first, second, third] = args as [unknown, unknown, unknown];
  if (typeof first === "string") {
    return typeof second === "function"
      ? { name: first, fn: second as Deno.TestDefinition["fn"] }
      : { ...(second as object), name: first, fn: third as Deno.TestDefinition["fn"] };
  }
  if (typeof first === "function") {
    const fn = first as Deno.TestDefinition["fn"];
    return { name: fn.name, fn };
  }
  return typeof second === "function"
    ? { ...(first as object), fn: second } as Deno.TestDefinition
    : first as Deno.TestDefinition;
}

/**
 * Imports `modules` (URLs) with their test gateways on PostgreSQL; with `only`, registers just
 * the tests whose names match it (a slow file's representative tests).
 */
export async function runOnPostgres(
  file: string,
  modules: URL[],
  options: { only?: RegExp } = {},
): Promise<void> {
  const { server, reason } = await testPostgres();
  const names = modules.map((module) => module.pathname.replace(/.*\/tests\//, "tests/"));
  if (!server) {
    for (const name of names) {
      Deno.test({
        name: `${PREFIX}${name}`,
        ignore: !STRICT,
        fn: () => {
          throw new Error(`${reason}, and GATEWAY_TEST_STRICT=1`);
        },
      });
    }
    if (!STRICT) {
      const tests = names.length === 1 ? "test" : "tests";
      console.log(`${names.length} postgresql ${tests} ignored in ${file}: ${reason}`);
    }
    return;
  }
  useTestStore("postgres");
  const register = Deno.test;
  const prefixed = (...args: unknown[]) => {
    const definition = definitionOf(args);
    if (options.only && !options.only.test(definition.name)) return;
    register({ ...definition, name: `${PREFIX}${definition.name}` });
  };
  const deno = Deno as { test: typeof Deno.test };
  deno.test = Object.assign(prefixed, {
    ignore: (...args: unknown[]) => prefixed({ ...definitionOf(args), ignore: true }),
    only: register.only,
  }) as unknown as typeof Deno.test;
  try {
    for (const module of modules) await import(module.href);
  } finally {
    deno.test = register;
  }
}
