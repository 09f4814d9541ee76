/**
 * The tree's design, checked: every module of core/, routes/ and workers/ belongs to a layer,
 * and imports only from its own layer or those below it. A new folder must be given a layer
 * here, so the picture stays whole. Run alone: deno test --allow-read tests/architecture/
 */

import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * Layers, lowest first. A module imports from its own unit, a unit of the same layer (no
 * cycles between units), or a lower layer.
 */
const LAYERS: string[][] = [
  [
    "core/util",
    "core/errors.ts",
    "core/crash_points.ts",
    "core/settings.ts",
    "core/platform.ts",
    "core/version.ts",
  ],
  ["core/kv", "core/jobs"],
  [
    "core/billing",
    "core/keys",
    "core/telemetry",
    "core/media",
    "core/channels",
    "core/audit",
    "core/console",
    "core/accounts",
  ],
  [
    "core/upstream",
    "core/tasks",
    "core/formats",
    "core/webhooks",
    "core/config_file.ts",
    "core/members",
  ],
  ["core/providers"],
  ["core/gateway.ts", "core/scope.ts", "core/options_from_settings.ts"],
  [
    "core/text",
    "core/images",
    "core/video",
    "core/audio",
    "core/account_area",
    "core/rerank",
    "core/moderation",
    "core/embeddings",
  ],
  ["routes", "workers"],
];

const RANK = new Map(LAYERS.flatMap((units, rank) => units.map((unit) => [unit, rank])));

function unitOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] !== "core") return parts[0];
  return parts.length === 2 ? path : `core/${parts[1]}`;
}

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.tsx?$/.test(path)) yield path;
  }
}

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") out.pop();
    else if (part !== ".") out.push(part);
  }
  return out.join("/");
}

/** Every relative import of the project's source: [from, to] file paths. */
async function importEdges(): Promise<Array<[string, string]>> {
  const edges: Array<[string, string]> = [];
  for (const dir of ["core", "routes", "workers"]) {
    for await (const file of sources(dir)) {
      const text = await Deno.readTextFile(`${ROOT}${file}`);
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        const folder = file.slice(0, file.lastIndexOf("/"));
        edges.push([file, normalize(`${folder}/${match[1]}`)]);
      }
    }
  }
  return edges;
}

Deno.test("import layers: every module has a layer, and no import runs back up", async () => {
  const unranked = new Set<string>();
  const backEdges: string[] = [];
  for (const [from, to] of await importEdges()) {
    const fromUnit = unitOf(from);
    const toUnit = unitOf(to);
    if (!RANK.has(fromUnit)) unranked.add(fromUnit);
    if (!RANK.has(toUnit)) unranked.add(toUnit);
    if (fromUnit === toUnit || !RANK.has(fromUnit) || !RANK.has(toUnit)) continue;
    if (RANK.get(toUnit)! > RANK.get(fromUnit)!) backEdges.push(`${from} → ${to}`);
  }
  assertEquals([...unranked], [], `units without a layer (add them to LAYERS): ${[...unranked]}`);
  assertEquals(backEdges, [], `imports that run back up the layers:\n${backEdges.join("\n")}`);
});

Deno.test("import layers: no cycle between units of one layer", async () => {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of await importEdges()) {
    const fromUnit = unitOf(from);
    const toUnit = unitOf(to);
    if (fromUnit === toUnit || RANK.get(fromUnit) !== RANK.get(toUnit)) continue;
    if (!graph.has(fromUnit)) graph.set(fromUnit, new Set());
    graph.get(fromUnit)!.add(toUnit);
  }
  const cycles: string[] = [];
  const reaches = (from: string, target: string, seen = new Set<string>()): boolean => {
    for (const next of graph.get(from) ?? []) {
      if (next === target) return true;
      if (!seen.has(next) && (seen.add(next), reaches(next, target, seen))) return true;
    }
    return false;
  };
  for (const [unit, targets] of graph) {
    for (const target of targets) if (reaches(target, unit)) cycles.push(`${unit} ⇄ ${target}`);
  }
  assertEquals(cycles, [], `units of one layer that import each other: ${cycles.join(", ")}`);
});
