import { assertEquals, assertThrows } from "../../helpers/assert.ts";
import {
  decodeSortCursor,
  matchesKeyFilter,
  pageOfSorted,
  sortKeys,
} from "../../../core/keys/key_list.ts";
import type { KeyRecord } from "../../../core/keys/key_schema.ts";

const record = (fields: Partial<KeyRecord>): KeyRecord => ({
  id: "key_1",
  name: "team-a",
  group: "default",
  models: null,
  credit_limit: 0,
  unlimited: false,
  expires_at: null,
  rpm: null,
  enabled: true,
  prefix: "sk-gw-abcd",
  hash: "h",
  created_at: "2026-11-24T00:00:00Z",
  updated_at: "2026-11-24T00:00:00Z",
  ...fields,
});

Deno.test("matchesKeyFilter() applies every given filter; never-expiring keys are not expiring", () => {
  const key = record({ name: "team-a-ci", group: "pro", expires_at: "2026-12-01T00:00:00Z" });
  assertEquals(matchesKeyFilter(key, {}), true);
  assertEquals(matchesKeyFilter(key, { name_prefix: "team-a" }), true);
  assertEquals(matchesKeyFilter(key, { name_prefix: "team-b" }), false);
  assertEquals(matchesKeyFilter(key, { group: "pro", enabled: true }), true);
  assertEquals(matchesKeyFilter(key, { enabled: false }), false);
  const before = (iso: string) => ({ expires_before: Date.parse(iso) });
  assertEquals(matchesKeyFilter(key, before("2026-12-02T00:00:00Z")), true);
  assertEquals(matchesKeyFilter(key, before("2026-12-01T00:00:00Z")), false);
  assertEquals(matchesKeyFilter(record({}), before("2999-01-01T00:00:00Z")), false);
});

Deno.test("sortKeys() and pageOfSorted() page every key once, ties by id", () => {
  const rows = [
    { id: "key_a", value: 5 },
    { id: "key_b", value: 9 },
    { id: "key_c", value: 5 },
    { id: "key_d", value: 0 },
  ];
  for (const order of ["asc", "desc"] as const) {
    const sorted = sortKeys(rows, order);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = pageOfSorted(sorted, { cursor, limit: 1, order });
      seen.push(...page.page.map((row) => row.id));
      cursor = page.cursor ?? undefined;
    } while (cursor);
    const expected = order === "desc"
      ? ["key_b", "key_c", "key_a", "key_d"]
      : ["key_d", "key_a", "key_c", "key_b"];
    assertEquals(seen, expected, order);
  }
});

Deno.test("decodeSortCursor() refuses a cursor it did not make", () => {
  assertThrows(() => decodeSortCursor("bm90LWpzb24"));
  assertThrows(() => decodeSortCursor("WyJ4Il0"));
});
