/**
 * Every KV write of core/, routes/ and workers/ survives SQLite's passing "database is locked"
 * (two processes on one local KV file): each `.commit(`, `kv.set(` and `kv.delete(` sits inside a
 * `withKvRetry(…)` call (core/kv/kv_retry.ts), or its line or the line above says
 * `// kv-locked: <why>` where the code handles the lock itself (the ledger's own loop).
 * Run alone: deno test --allow-read tests/architecture/
 */

import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const WRITE = /\.commit\(|\bkv\.(?:set|delete)\(/g;
const MARKER = "// kv-locked:";

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(path)) yield path;
  }
}

/** Where a regular expression literal may start after `previous` (the last code character). */
const REGEX_AFTER = new Set([..."(,=:[!&|?{};+-*%<>~^", ""]);

/**
 * `text` with comments, strings, template literals and regular expressions blanked (lengths and
 * line breaks kept), so brackets and calls can be matched on what is left.
 */
export function codeOnly(text: string): string {
  const out = text.split("");
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== "\n") out[i] = " ";
  };
  let previous = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    let end = i + 1;
    if (c === "/" && next === "/") {
      end = text.indexOf("\n", i);
      if (end < 0) end = text.length;
    } else if (c === "/" && next === "*") {
      // An unclosed one (a guess gone wrong in JSX text) ends the text rather than looping.
      const close = text.indexOf("*/", i + 2);
      end = close < 0 ? text.length : close + 2;
    } else if (c === '"' || c === "'" || c === "`") {
      while (end < text.length && text[end] !== c) end += text[end] === "\\" ? 2 : 1;
      end++;
    } else if (c === "/" && (REGEX_AFTER.has(previous) || /\breturn\s*$/.test(text.slice(0, i)))) {
      let inClass = false;
      while (end < text.length && (inClass || text[end] !== "/")) {
        if (text[end] === "[") inClass = true;
        else if (text[end] === "]") inClass = false;
        end += text[end] === "\\" ? 2 : 1;
      }
      end++;
    } else {
      if (!/\s/.test(c)) previous = c;
      i++;
      continue;
    }
    blank(i, end);
    previous = "x";
    i = end;
  }
  return out.join("");
}

/** The writes in `text` (line numbers) that are neither inside `withKvRetry(` nor marked. */
export function unretriedWrites(text: string): number[] {
  const code = codeOnly(text);
  const lines = text.split("\n");
  const lineOf = (index: number) => code.slice(0, index).split("\n").length;
  // For each open parenthesis: whether it opens a withKvRetry call.
  const open: boolean[] = [];
  const retriedAt = new Set<number>();
  const writes = [...code.matchAll(WRITE)].map((match) => match.index! + match[0].length - 1);
  const writeSet = new Set(writes);
  for (let i = 0; i < code.length; i++) {
    if (code[i] === "(") {
      if (writeSet.has(i) && open.includes(true)) retriedAt.add(i);
      open.push(/\bwithKvRetry\s*$/.test(code.slice(Math.max(0, i - 40), i)));
    } else if (code[i] === ")") open.pop();
  }
  return writes.filter((at) => !retriedAt.has(at)).map(lineOf).filter((line) =>
    !lines[line - 1].includes(MARKER) && !(lines[line - 2] ?? "").includes(MARKER)
  );
}

Deno.test("architecture: the scanner tells a retried write from a bare one", () => {
  const sample = [
    "await withKvRetry(() => atomic.commit());", // 1
    "await atomic.commit();", // 2
    "await withKvRetry(async () => {", // 3
    "  const s = ')';", // 4
    "  await this.#kv.set(k, v); // (", // 5
    "});", // 6
    "await this.#kv.delete(k);", // 7
    "// kv-locked: handled by its own loop", // 8
    "const r = await atomic.commit();", // 9
    "const re = /\\(/; await kv.set(k, v);", // 10
    "const t = `${withKvRetry(() => 1)}`; kv.delete(k);", // 11
  ].join("\n");
  assertEquals(unretriedWrites(sample), [2, 7, 10, 11]);
});

Deno.test("architecture: every KV write in core/, routes/ and workers/ retries a locked KV", async () => {
  const bare: string[] = [];
  for (const dir of ["core", "routes", "workers"]) {
    for await (const path of sources(dir)) {
      if (path === "core/kv/counting_kv.ts") continue; // a proxy around commit, not a write site
      const text = await Deno.readTextFile(`${ROOT}${path}`);
      for (const line of unretriedWrites(text)) bare.push(`${path}:${line}`);
    }
  }
  assertEquals(bare, [], `wrap in withKvRetry (core/kv/kv_retry.ts): ${bare.join(", ")}`);
});
