import { assertEquals } from "../../helpers/assert.ts";
import {
  encodedVector,
  vectorFromBase64,
  vectorToBase64,
} from "../../../core/embeddings/vector_encoding.ts";

Deno.test("vectors: base64 is little-endian float32, and back", () => {
  assertEquals(vectorToBase64([1]), "AACAPw==");
  assertEquals(vectorFromBase64("AACAPw=="), [1]);
  assertEquals(vectorFromBase64("AACA"), undefined);
  assertEquals(vectorFromBase64("not base64!"), undefined);
  assertEquals(encodedVector([0.5, -2], true), vectorToBase64([0.5, -2]));
  assertEquals(encodedVector(vectorToBase64([0.5, -2]), false), [0.5, -2]);
});
