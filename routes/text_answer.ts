/** Renders a text answer (JSON or stream) as the HTTP response. */

import type { TextAnswer } from "../core/text/serve_text.ts";

export function textResponse(answer: TextAnswer): Response {
  if (answer.kind === "json") {
    return new Response(answer.body, {
      headers: { "content-type": "application/json", ...answer.headers },
    });
  }
  return new Response(answer.stream, {
    headers: {
      "content-type": answer.contentType,
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      ...answer.headers,
    },
  });
}
