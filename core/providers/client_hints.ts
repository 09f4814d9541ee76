/**
 * What a client sends beside its body that an upstream of its vendor may take: Anthropic's
 * `anthropic-version` and `anthropic-beta` headers and the `?beta=true` query of its SDK's
 * beta methods. Read once per request; the provider of a channel decides what to forward.
 */

export interface ClientHints {
  /** `anthropic-version` (or the spec's name for it, `vendor-version`), when sent. */
  anthropicVersion?: string;
  /** Every `anthropic-beta` value, repeated headers and comma lists alike, in order, each once. */
  anthropicBetas: string[];
  /** The `beta` query parameter (`?beta=true`), when sent. */
  betaQuery?: string;
}

/** A request that said nothing beside its body. */
export const NO_CLIENT_HINTS: ClientHints = { anthropicBetas: [] };

/** The hints in a client request's headers and URL. */
export function readClientHints(headers: Headers, url: URL): ClientHints {
  const hints: ClientHints = { anthropicBetas: [] };
  const version = (headers.get("anthropic-version") ?? headers.get("vendor-version"))?.trim();
  if (version) hints.anthropicVersion = version;
  // Headers.get joins repeated headers with ", ", so one split reads both forms.
  const betas = (headers.get("anthropic-beta") ?? "").split(",").map((beta) => beta.trim());
  hints.anthropicBetas = [...new Set(betas.filter((beta) => beta !== ""))];
  const betaQuery = url.searchParams.get("beta");
  if (betaQuery !== null) hints.betaQuery = betaQuery;
  return hints;
}
