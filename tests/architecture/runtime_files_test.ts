/**
 * At run time the gateway reads no file beside its code or binary: a `deno compile` binary (and
 * a Deploy build) carries every module and JSON import inside it, and nothing is looked up
 * relative to `import.meta`. The only files it touches are the KV (and the secret key file beside
 * a local KV), the config file, and temp files (uploads, ffprobe's input) — each named here, so a
 * new one is a decision, not an accident.
 */

import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** File system calls allowed at run time, by file, and why. */
const ALLOWED: Record<string, { calls: string[]; why: string }> = {
  "main.ts": { calls: ["openKv", "mkdir"], why: "the KV (and the folder of a local KV file)" },
  "core/config_file.ts": { calls: ["readTextFile"], why: "the config file (GATEWAY_CONFIG)" },
  "core/channels/secret_box.ts": {
    calls: ["readFile", "remove", "writeFile"],
    why: "the secret key file beside a local KV file (never on Deploy)",
  },
  "routes/video_form.ts": {
    calls: ["open", "makeTempDir", "remove"],
    why: "uploads in a temp dir, where temp files may be written",
  },
  "core/video/video_service.ts": { calls: ["open"], why: "an upload's temp file" },
  "core/media/media_duration.ts": { calls: ["readFile"], why: "an upload's temp file" },
  "core/media/ffprobe.ts": {
    calls: ["open", "makeTempFile", "writeFile", "remove"],
    why: "an upload's temp file piped to ffprobe; ffprobe's input where it cannot read a pipe",
  },
};

const FS_CALL =
  /Deno\.(readFile|readTextFile|readFileSync|readTextFileSync|open|openSync|readDir|readDirSync|stat|statSync|lstat|lstatSync|realPath|readLink|makeTempDir|makeTempFile|writeFile|writeTextFile|mkdir|remove|copyFile|rename|chmod|truncate|openKv)\b/g;
const BESIDE_THE_CODE = /import\.meta\.(url|dirname|filename|resolve)|["']file:/g;

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(path)) yield path;
  }
}

/** Source text without comments, so a file mentioning an API in prose does not count. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

Deno.test("run time: no file is read beside the code; file system calls only where allowed", async () => {
  const files = ["main.ts", "app.ts"];
  for (const dir of ["core", "routes", "workers"]) {
    for await (const file of sources(dir)) files.push(file);
  }
  const found: Record<string, string[]> = {};
  const beside: string[] = [];
  for (const file of files) {
    const text = code(await Deno.readTextFile(`${ROOT}${file}`));
    const calls = [...new Set([...text.matchAll(FS_CALL)].map((match) => match[1]))].sort();
    if (calls.length) found[file] = calls;
    for (const match of text.matchAll(BESIDE_THE_CODE)) beside.push(`${file}: ${match[0]}`);
  }
  assertEquals(beside, [], "run-time code that looks for files beside itself");
  const allowed = Object.fromEntries(
    Object.entries(ALLOWED).map(([file, { calls }]) => [file, [...calls].sort()]),
  );
  assertEquals(found, allowed);
});
