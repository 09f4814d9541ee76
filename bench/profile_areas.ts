/** Self time of a V8 CPU profile (`--cpu-prof`), summed by area of code. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface AreaTime {
  name: string;
  selfMs: number;
}

/** The area a function belongs to: a project folder, a package, a Deno extension, or V8's own. */
export function areaOf(frame: ProfileNode["callFrame"]): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const npm = /\/npm\/registry\.npmjs\.org\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (npm) return `npm:${npm[1]}`;
  const ext = /^ext:([^/]+)/.exec(url);
  if (ext) return `ext:${ext[1]}`;
  const project = /\/(core\/[^/]+|routes|workers|bench)\//.exec(url);
  if (project) return project[1];
  const coreFile = /\/(core\/[^/]+\.ts)$/.exec(url);
  if (coreFile) return coreFile[1];
  if (/\/(app|main)\.ts$/.test(url)) return url.slice(url.lastIndexOf("/") + 1);
  if (url.startsWith("node:")) return "node";
  return url.replace(/^.*\//, "");
}

/** Self time per function (`name (file)`, natives under their caller's name), largest first. */
export function profileFunctions(profile: CpuProfile, { lastMs = Infinity } = {}): AreaTime[] {
  return profileBy(
    profile,
    lastMs,
    (frame) =>
      `${frame.functionName || "(anonymous)"} (${frame.url.replace(/^.*\//, "") || "native"})`,
  );
}

/**
 * Self time per area, largest first. A native function (JSON.parse, a digest) counts for the
 * area that called it. `lastMs` keeps only the samples of the profile's last milliseconds.
 */
export function profileAreas(profile: CpuProfile, { lastMs = Infinity } = {}): AreaTime[] {
  return profileBy(profile, lastMs, areaOf);
}

function profileBy(
  profile: CpuProfile,
  lastMs: number,
  nameOf: (frame: ProfileNode["callFrame"]) => string,
): AreaTime[] {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const areaOfNode = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = areaOfNode.get(id);
    if (known) return known;
    const node = byId.get(id);
    let area = node ? nameOf(node.callFrame) : "(unknown)";
    if (node && areaOf(node.callFrame) === "(native)" && parent.has(id)) {
      const above = resolve(parent.get(id)!);
      if (!above.startsWith("(")) area = above;
    }
    areaOfNode.set(id, area);
    return area;
  };
  const times: number[] = [];
  let clock = 0;
  for (const delta of profile.timeDeltas) times.push(clock += delta);
  const from = clock - lastMs * 1000;
  const totals = new Map<string, number>();
  profile.samples.forEach((nodeId, i) => {
    if (times[i] < from) return;
    const area = resolve(nodeId);
    totals.set(area, (totals.get(area) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals].map(([name, selfMs]) => ({ name, selfMs }))
    .sort((a, b) => b.selfMs - a.selfMs);
}
