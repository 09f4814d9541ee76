/**
 * The names request records give the OpenAI family's routes that are not text interfaces:
 * exact, as its routes are different APIs behind one credential form (issue 15). Text
 * interfaces name themselves (core/formats/interfaces.ts reads both).
 */

/** The `{model}:method` path segment of Gemini's embedding routes, as Hono declares it. */
export const GEMINI_EMBED_SEGMENT = ":model{[^/]+:(?:embedContent|batchEmbedContents)}";

/** The family's media routes, by route prefix. */
const MEDIA_ROUTES: Record<string, Array<[prefix: string, name: string]>> = {
  openai: [
    ["/v1/images", "openai-images"],
    ["/v1/video", "video"],
    // Before any shorter /v1/audio prefix: speech is named on its own.
    ["/v1/audio/speech", "openai-audio-speech"],
    ["/v1/rerank", "rerank"],
    ["/v1/moderations", "moderation"],
    ["/v1/audio/transcriptions", "openai-audio"],
    ["/v1/audio/translations", "openai-audio"],
    ["/v1/embeddings", "openai-embeddings"],
  ],
  gemini: [
    [`/v1beta/models/${GEMINI_EMBED_SEGMENT}`, "gemini-embeddings"],
    [`/v1/models/${GEMINI_EMBED_SEGMENT}`, "gemini-embeddings"],
  ],
};

/** The name of a media route `family` serves at `route` (a route template), if it is one. */
export function mediaInterfaceName(family: string, route: string): string | undefined {
  for (const [prefix, name] of MEDIA_ROUTES[family] ?? []) {
    if (route === prefix || route.startsWith(`${prefix}/`)) return name;
  }
  return undefined;
}

/** Every media route name of `family`. */
export function mediaInterfaceNames(family: string): string[] {
  return (MEDIA_ROUTES[family] ?? []).map(([, name]) => name);
}
