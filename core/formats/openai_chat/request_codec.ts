/**
 * Old path of the chat-completions request decoder, kept for importers outside core/formats.
 * @deprecated Import from `./mod.ts`.
 */

export { decodeChatRequest } from "./mod.ts";
