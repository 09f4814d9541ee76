/**
 * The store is a seam: core/, routes/ and workers/ reach KV only through `KvBackend` and
 * `KvAtomic` (core/kv/kv_backend.ts), never through the `Deno.Kv` or `Deno.AtomicOperation` types,
 * so a second backend that passes the KV conformance suite (tests/core/kv/kv_conformance.ts) can
 * stand in for `Deno.Kv`. Only main.ts opens a `Deno.Kv`.
 * Run alone: deno test --allow-read tests/architecture/
 */

import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SEAM = "core/kv/kv_backend.ts";
const DENO_KV_TYPE = /\bDeno\.(?:Kv|AtomicOperation|KvListIterator|KvListOptions)\b/;

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(path)) yield path;
  }
}

Deno.test("stores take a KvBackend: no Deno.Kv type in core/, routes/ or workers/", async () => {
  const found: string[] = [];
  for (const dir of ["core", "routes", "workers"]) {
    for await (const path of sources(dir)) {
      if (path === SEAM) continue;
      const lines = (await Deno.readTextFile(`${ROOT}${path}`)).split("\n");
      lines.forEach((line, index) => {
        const code = line.replace(/\/\/.*$/, "");
        if (!/^\s*\*/.test(code) && DENO_KV_TYPE.test(code)) {
          found.push(`${path}:${index + 1}: ${line.trim()}`);
        }
      });
    }
  }
  assertEquals(found, [], `use KvBackend / KvAtomic from ${SEAM}:\n${found.join("\n")}`);
});
