/**
 * The names a request's tools take on an upstream that has no namespaces (pure). A responses
 * client may group functions under a `namespace` tool; chat completions, Anthropic and Gemini
 * know only flat names of at most 64 characters from `[A-Za-z0-9_-]`. Each namespaced tool gets
 * `<namespace>__<name>`, or, when that is too long, not a valid name, or already taken, a
 * shortened form with a stable hash suffix. The map is built per request and read both ways.
 */

/** A tool as the client declared it. */
export interface DeclaredTool {
  name: string;
  /** The `namespace` tool it belongs to, if any. */
  namespace?: string;
  /** A responses `custom` tool: free-form text input instead of JSON arguments. */
  freeform?: boolean;
}

/** One request's tool names, both ways. */
export interface ToolNameMap {
  /** Upstream name → the tool as declared. */
  readonly declared: ReadonlyMap<string, DeclaredTool>;
  /** Declared key (see `declaredKey`) → upstream name. */
  readonly upstream: ReadonlyMap<string, string>;
}

/** The longest tool name chat completions, Anthropic and Gemini all take. */
export const TOOL_NAME_LIMIT = 64;

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function declaredKey(tool: { name: string; namespace?: string }): string {
  return tool.namespace === undefined ? tool.name : `${tool.namespace}\u0000${tool.name}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: short, stable across runs and instances. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** A flat name for a namespaced tool that no tool in `taken` has. */
function flatName(tool: DeclaredTool, taken: ReadonlySet<string>): string {
  const plain = `${tool.namespace}__${tool.name}`;
  if (plain.length <= TOOL_NAME_LIMIT && VALID_NAME.test(plain) && !taken.has(plain)) return plain;
  const cleaned = plain.replace(/[^A-Za-z0-9_-]/g, "_").replace(/^(?=[^A-Za-z_])/, "_");
  for (let attempt = 0;; attempt++) {
    const suffix = `_${shortHash(`${declaredKey(tool)}#${attempt}`)}`;
    const name = cleaned.slice(0, TOOL_NAME_LIMIT - suffix.length) + suffix;
    if (!taken.has(name)) return name;
  }
}

/**
 * The upstream names of `tools`, in order: a tool outside any namespace keeps its own name
 * (claimed first, so a flattened name never takes it); a namespaced one gets a flat name.
 */
export function flattenToolNames(tools: DeclaredTool[]): ToolNameMap {
  const declared = new Map<string, DeclaredTool>();
  const upstream = new Map<string, string>();
  for (const tool of tools) {
    if (tool.namespace !== undefined || declared.has(tool.name)) continue;
    declared.set(tool.name, tool);
    upstream.set(declaredKey(tool), tool.name);
  }
  for (const tool of tools) {
    if (tool.namespace === undefined || upstream.has(declaredKey(tool))) continue;
    const name = flatName(tool, new Set(declared.keys()));
    declared.set(name, tool);
    upstream.set(declaredKey(tool), name);
  }
  return { declared, upstream };
}

/**
 * The upstream name of a tool the client names (in history or `tool_choice`). Without a
 * namespace, a name that is a flattened one or belongs to exactly one namespaced tool is found
 * too; a name the map does not know stays as it is.
 */
export function upstreamToolName(
  map: ToolNameMap,
  tool: { name: string; namespace?: string | null },
): string {
  const namespace = tool.namespace ?? undefined;
  const found = map.upstream.get(declaredKey({ name: tool.name, namespace }));
  if (found !== undefined || namespace !== undefined) return found ?? tool.name;
  if (map.declared.has(tool.name)) return tool.name;
  const inNamespaces = [...map.declared].filter(([, declared]) => declared.name === tool.name);
  return inNamespaces.length === 1 ? inNamespaces[0][0] : tool.name;
}

/** The tool as the client declared it, for a name the upstream called. */
export function declaredToolOf(map: ToolNameMap, upstreamName: string): DeclaredTool {
  return map.declared.get(upstreamName) ?? { name: upstreamName };
}

/** A neutral tool call (part or stream event) under the name and namespace the client declared. */
export function restoreDeclaredCall<T extends { type: string; name?: string }>(
  map: ToolNameMap | undefined,
  call: T,
): T {
  if (!map || call.type !== "tool_call" || call.name === undefined) return call;
  return { ...call, ...declaredToolOf(map, call.name) };
}
