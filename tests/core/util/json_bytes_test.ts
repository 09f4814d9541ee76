import { assertEquals } from "../../helpers/assert.ts";
import {
  indexOfToken,
  lastIndexOfToken,
  skipSpace,
  stringEnd,
  tokenOf,
} from "../../../core/util/json_bytes.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("indexOfToken() / lastIndexOfToken(): every occurrence, from either end", () => {
  const text = bytes('"a""ab" "ab"');
  const token = tokenOf('"ab"');
  assertEquals(indexOfToken(text, token), 3);
  assertEquals(indexOfToken(text, token, 4), 8);
  assertEquals(indexOfToken(text, token, 9), -1);
  assertEquals(lastIndexOfToken(text, token), 8);
  assertEquals(lastIndexOfToken(text, token, 7), 3);
  assertEquals(lastIndexOfToken(text, token, 2), -1);
  assertEquals(lastIndexOfToken(bytes('"ab'), token), -1);
});

Deno.test("skipSpace() / stringEnd(): JSON whitespace skipped, escaped quotes kept inside", () => {
  assertEquals(skipSpace(bytes(" \t\r\n{"), 0), 4);
  assertEquals(skipSpace(bytes("  "), 0), 2);
  assertEquals(stringEnd(bytes('"a\\"b" x'), 0), 6);
  assertEquals(stringEnd(bytes('"abc'), 0), -1);
});
