/** Bedrock model ids as its calls take them: in a path, and an inference profile's model. Pure. */

/** The path of `modelId`'s call: the id is one path segment, `:` and `/` (ARNs) encoded. */
export function bedrockModelPath(modelId: string, action: string): string {
  return `/model/${encodeURIComponent(modelId)}/${action}`;
}

/** A cross-region inference profile's geography prefix (`us.`, `eu.`, `apac.`, `global.`…). */
const PROFILE_PREFIX = /^(?:us|us-gov|eu|apac|jp|au|ca|global)\.(?=[a-z0-9-]+\.)/;

/** The model id CountTokens takes for `modelId`: an inference profile's foundation model. */
export function bedrockCountingModel(modelId: string): string {
  return modelId.replace(PROFILE_PREFIX, "");
}
