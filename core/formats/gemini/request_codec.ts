/**
 * Old path of the generate-content request decoder, kept for importers outside core/formats.
 * @deprecated Import from `./mod.ts`.
 */

export { decodeGeminiRequest, geminiOnlyFeature } from "./mod.ts";
