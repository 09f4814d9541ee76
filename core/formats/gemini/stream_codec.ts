/**
 * Old path of the generate-content stream framing type, kept for importers outside core/formats.
 * @deprecated Import from `./mod.ts`.
 */

export type { GeminiFraming } from "./mod.ts";
