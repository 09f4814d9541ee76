import { z } from "zod";
import { assertEquals } from "../../helpers/assert.ts";
import {
  listOf,
  optionalListOf,
  optionalNumber,
  optionalObject,
  optionalString,
  readLenient,
  readLenientJson,
  unknownField,
} from "../../../core/util/lenient_schema.ts";

const schema = z.looseObject({
  id: optionalString,
  count: unknownField,
  limit: optionalNumber,
  detail: optionalObject({ reason: optionalString }),
  items: listOf(z.looseObject({ name: z.string() })),
  tags: optionalListOf(z.string()),
});

Deno.test("readLenient() keeps added fields and reads missing, null or mistyped ones as undefined", () => {
  const read = readLenient(schema, {
    id: 7,
    count: "12",
    limit: null,
    detail: "none",
    added: { kept: true },
  });
  assertEquals(read.id, undefined);
  assertEquals(read.count, "12");
  assertEquals(read.limit, undefined);
  assertEquals(read.detail, undefined);
  assertEquals(read.added, { kept: true });
  assertEquals(read.items, []);
  assertEquals(read.tags, undefined);
});

Deno.test("listOf() keeps the entries that fit and drops the others; optionalListOf() tells no list apart", () => {
  const read = readLenient(schema, {
    items: [{ name: "a" }, null, { name: 3 }, { name: "b", added: 1 }],
    tags: ["x", 5],
  });
  assertEquals(read.items, [{ name: "a" }, { name: "b", added: 1 }]);
  assertEquals(read.tags, ["x"]);
  assertEquals(readLenient(schema, { tags: [] }).tags, []);
  assertEquals(readLenient(schema, { items: "none" }).items, []);
});

Deno.test("readLenient() and readLenientJson() read a value that is not an object, or not JSON, as {}", () => {
  assertEquals(readLenient(schema, null).items, []);
  assertEquals(readLenient(schema, [1, 2]).id, undefined);
  assertEquals(readLenientJson(schema, "not json").items, []);
  assertEquals(readLenientJson(schema, '{"id":"r1"}').id, "r1");
});
