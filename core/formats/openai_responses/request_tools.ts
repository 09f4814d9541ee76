/**
 * The tools of a responses request for an upstream of another format (pure): function tools as
 * they are, the functions of `namespace` tools one by one (their flat names come from
 * `tool_names.ts`), `custom` (free-form) tools as a function of one string `input`, and hosted
 * tools (`web_search`, `file_search`, …), which only a responses upstream runs, dropped and named.
 */

import type { NeutralTool } from "../neutral.ts";
import type { DeclaredTool } from "../tool_names.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export interface RequestTools {
  /** Each tool as declared, in order… */
  declared: DeclaredTool[];
  /** …and as a neutral tool, under its declared name (the map gives the upstream one). */
  neutral: NeutralTool[];
  /** What was dropped, as `x-gateway-ignored-fields` names it. */
  dropped: string[];
}

/** The tool types another format can carry; any other type is hosted by the responses API. */
const CONVERTIBLE = new Set(["function", "namespace", "custom"]);

/** The JSON Schema a free-form tool's one argument takes. */
const FREEFORM_PARAMETERS = {
  type: "object",
  properties: { input: { type: "string", description: "The whole input, as free-form text" } },
  required: ["input"],
  additionalProperties: false,
};

/** `tools[type=…]` for each hosted tool type, once each, in order. */
export function hostedToolsOf(tools: Json): string[] {
  if (!Array.isArray(tools)) return [];
  const types = tools.map((tool) => tool?.type).filter((type) => !CONVERTIBLE.has(type));
  return [...new Set(types)].map((type) => `tools[type=${type}]`);
}

function describe(tool: Json, namespace: Json): string | undefined {
  const own = typeof tool.description === "string" && tool.description ? tool.description : "";
  const group = typeof namespace?.description === "string" && namespace.description
    ? `(One of the ${namespace.name} tools: ${namespace.description})`
    : "";
  return [own, group].filter(Boolean).join("\n\n") || undefined;
}

/** One function or custom tool, possibly inside a namespace. */
function convertTool(
  tool: Json,
  namespace: Json,
): { declared: DeclaredTool; neutral: NeutralTool; formatDropped: boolean } | undefined {
  if ((tool?.type !== "function" && tool?.type !== "custom") || typeof tool.name !== "string") {
    return undefined;
  }
  const freeform = tool.type === "custom";
  const declared: DeclaredTool = {
    name: tool.name,
    ...(namespace ? { namespace: namespace.name } : {}),
    ...(freeform ? { freeform } : {}),
  };
  const neutral: NeutralTool = {
    name: tool.name,
    description: describe(tool, namespace),
    parameters: freeform
      ? FREEFORM_PARAMETERS
      : tool.parameters ?? { type: "object", properties: {} },
    ...(!freeform && typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
  };
  const formatDropped = freeform && tool.format != null && tool.format.type !== "text";
  return { declared, neutral, formatDropped };
}

/** The tools of `tools` (a responses request's `tools`) in terms every format has. */
export function toolsOfRequest(tools: Json): RequestTools {
  const result: RequestTools = { declared: [], neutral: [], dropped: hostedToolsOf(tools) };
  let formatDropped = false;
  const add = (tool: Json, namespace?: Json) => {
    const converted = convertTool(tool, namespace);
    if (!converted) return;
    result.declared.push(converted.declared);
    result.neutral.push(converted.neutral);
    formatDropped ||= converted.formatDropped;
  };
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (tool?.type !== "namespace") add(tool);
    else if (typeof tool.name === "string" && Array.isArray(tool.tools)) {
      for (const inner of tool.tools) add(inner, tool);
    }
  }
  if (formatDropped) result.dropped.push("tools[type=custom].format");
  return result;
}
