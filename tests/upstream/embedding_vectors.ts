/**
 * The simulated embedding upstreams' vectors: deterministic for a model and a text (the same
 * input always embeds alike, different inputs differently), unit length, and shortened by
 * truncation and renormalising, as OpenAI's text-embedding-3 and Gemini's Matryoshka embeddings
 * are. Tests recompute them to compare what the gateway delivered.
 */

/** FNV-1a of `text`, as the seed of a vector. */
function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The vector of `input` for `model`, `dimensions` long (float32 values). */
export function simulatedVector(model: string, input: string, dimensions: number): number[] {
  let state = seedOf(`${model}\u0000${input}`) || 1;
  const values: number[] = [];
  for (let i = 0; i < dimensions; i++) {
    // xorshift32: cheap and deterministic.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    values.push(state / 0xffffffff - 0.5);
  }
  const norm = Math.hypot(...values) || 1;
  return Array.from(new Float32Array(values.map((value) => value / norm)));
}
