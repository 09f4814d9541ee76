/**
 * Old path of the messages request decoder, kept for importers outside core/formats.
 * @deprecated Import from `./mod.ts`.
 */

export { anthropicOnlyFeature, decodeAnthropicRequest } from "./mod.ts";
