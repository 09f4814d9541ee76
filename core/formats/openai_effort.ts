/**
 * Reasoning effort levels as both OpenAI APIs (chat `reasoning_effort`, responses
 * `reasoning.effort`) take them; `max` is Anthropic's, and the nearest OpenAI level is `xhigh`.
 */
export const OPENAI_EFFORT = {
  none: "none",
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
  max: "xhigh",
} as const;
