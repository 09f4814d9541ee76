/**
 * The settings of a responses request that its response object repeats, as OpenAI's API does
 * (pure): each the request's value, or the documented default when the request left it out.
 */

// deno-lint-ignore no-explicit-any
type Json = any;

/** What a response object says of the request it answers. */
export type RequestSettings = Record<string, Json>;

/**
 * A declared tool as a response lists it. A function tool's `parameters` and `strict` are
 * required there (nullable): null when the request left them out.
 */
function listedTool(tool: Json): Json {
  if (tool?.type === "function") {
    return { description: null, parameters: null, strict: null, ...tool };
  }
  if (tool?.type === "namespace" && Array.isArray(tool.tools)) {
    return { ...tool, tools: tool.tools.map(listedTool) };
  }
  return tool;
}

/** Optional string fields a response repeats only when the request gave them. */
const REPEATED_WHEN_GIVEN = ["user", "safety_identifier", "prompt_cache_key"] as const;

/**
 * The request's settings for its response object. `store` is false: a converted channel keeps
 * no response to continue from (a later `previous_response_id` needs a responses upstream).
 */
export function requestSettings(body: Json): RequestSettings {
  const settings: RequestSettings = {
    background: false,
    instructions: typeof body?.instructions === "string" ? body.instructions : null,
    max_output_tokens: body?.max_output_tokens ?? null,
    max_tool_calls: body?.max_tool_calls ?? null,
    metadata: body?.metadata ?? {},
    parallel_tool_calls: body?.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: {
      effort: body?.reasoning?.effort ?? null,
      summary: body?.reasoning?.summary ?? null,
    },
    store: false,
    temperature: body?.temperature ?? 1,
    text: {
      format: body?.text?.format ?? { type: "text" },
      verbosity: body?.text?.verbosity ?? "medium",
    },
    tool_choice: body?.tool_choice ?? "auto",
    tools: Array.isArray(body?.tools) ? body.tools.map(listedTool) : [],
    top_p: body?.top_p ?? 1,
    truncation: body?.truncation ?? "disabled",
  };
  for (const field of REPEATED_WHEN_GIVEN) {
    if (typeof body?.[field] === "string") settings[field] = body[field];
  }
  return settings;
}
