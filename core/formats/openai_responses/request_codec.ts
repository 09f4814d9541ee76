/**
 * Old path of the responses request decoder, kept for importers outside core/formats.
 * @deprecated Import from `./mod.ts`.
 */

export { decodeResponsesRequest, responsesOnlyFeature } from "./mod.ts";
