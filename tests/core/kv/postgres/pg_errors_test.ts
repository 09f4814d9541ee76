import { assertEquals } from "../../../helpers/assert.ts";
import {
  isConflict,
  isConnectionLost,
  isStatementTimeout,
} from "../../../../core/kv/postgres/pg_errors.ts";

const withCode = (message: string, code?: string) => Object.assign(new Error(message), { code });

Deno.test("pg errors: conflicts to retry, lost connections, and the rest", () => {
  const cases: [Error, boolean, boolean][] = [
    [withCode("could not serialize access", "40001"), true, false],
    [withCode("deadlock detected", "40P01"), true, false],
    [withCode("terminating connection due to administrator command", "57P01"), false, true],
    [withCode("connection failure", "08006"), false, true],
    [withCode("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED"), false, true],
    [new Error("Connection terminated unexpectedly"), false, true],
    [new Error("timeout exceeded when trying to connect"), false, true],
    [withCode("canceling statement due to statement timeout", "57014"), false, false],
    [withCode("duplicate key value", "23505"), false, false],
    [new TypeError("Value too large (max 65536 bytes)"), false, false],
  ];
  for (const [error, conflict, lost] of cases) {
    assertEquals([isConflict(error), isConnectionLost(error)], [conflict, lost], error.message);
  }
});

Deno.test("pg errors: a statement cancelled at its deadline is told apart", () => {
  assertEquals(
    isStatementTimeout(withCode("canceling statement due to statement timeout", "57014")),
    true,
  );
  assertEquals(isStatementTimeout(withCode("could not serialize access", "40001")), false);
  assertEquals(isStatementTimeout(new Error("Connection terminated unexpectedly")), false);
});
