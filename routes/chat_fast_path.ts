/**
 * POST /v1/chat/completions on the fast path (routes/fast_path.ts): the body checked (a quick
 * check of the fields the gateway reads; zod only when that says no, for its 400) and served by
 * the text service as the Hono route serves it; conversion to other channel types happens there.
 */

import { chatRequestSchema } from "../core/formats/openai_chat/request_schema.ts";
import { isPlainChatRequest } from "../core/formats/openai_chat/plain_request.ts";
import { chatInbound } from "../core/text/inbound.ts";
import { serveText } from "../core/text/serve_text.ts";
import type { FastRoute } from "./fast_path.ts";
import { textResponse } from "./text_answer.ts";
import { validate } from "./validation.ts";

export const chatFastRoute: FastRoute = {
  path: "/v1/chat/completions",
  async serve(scope, body, request) {
    const chat = isPlainChatRequest(body) ? body : validate(chatRequestSchema, body);
    scope.context.model = chat.model;
    const inbound = chatInbound(chat);
    inbound.strictFields = request.headers.get("x-gateway-strict-fields")?.toLowerCase() === "true";
    const answer = await serveText(scope, inbound);
    return textResponse(answer, { requestId: scope.context.id });
  },
};
