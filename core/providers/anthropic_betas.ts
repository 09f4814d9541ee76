/**
 * A channel's `anthropic_betas` rules applied to a client's `anthropic-beta` values (pure).
 * A value passes when the allow list (if set) has an entry that matches it and the deny list has
 * none; an entry ending with `*` matches every value that starts with the rest.
 */

import type { Channel } from "../channels/channel_schema.ts";

export type AnthropicBetaRules = NonNullable<Channel["anthropic_betas"]>;

/** Whether `pattern` (a name, or a prefix ending with `*`) matches `beta`. */
export function betaMatches(pattern: string, beta: string): boolean {
  return pattern.endsWith("*") ? beta.startsWith(pattern.slice(0, -1)) : pattern === beta;
}

/** The values the rules let through, and those they remove, each in the order sent. */
export function filterAnthropicBetas(
  betas: readonly string[],
  rules: AnthropicBetaRules | undefined,
): { kept: string[]; removed: string[] } {
  const kept: string[] = [];
  const removed: string[] = [];
  for (const beta of betas) {
    const allowed = !rules?.allow || rules.allow.some((pattern) => betaMatches(pattern, beta));
    const denied = rules?.deny?.some((pattern) => betaMatches(pattern, beta)) ?? false;
    (allowed && !denied ? kept : removed).push(beta);
  }
  return { kept, removed };
}
