/** The shared shape of the text routes: read and check the body, serve it, render the answer. */

import type { ClientHints } from "../core/providers/client_hints.ts";
import type { Context } from "hono";
import type { z } from "zod";
import type { Gateway } from "../core/gateway.ts";
import type { TextInbound } from "../core/text/inbound.ts";
import { serveText, type TextAnswer } from "../core/text/serve_text.ts";
import type { AppEnv } from "./middleware.ts";
import { readJsonBody, validate } from "./validation.ts";

/** The HTTP answer; `requestId` adds `x-request-id` (the fast path has no middleware to). */
export function textResponse(answer: TextAnswer, { requestId }: { requestId?: string } = {}) {
  const ids: Record<string, string> = requestId === undefined ? {} : { "x-request-id": requestId };
  if (answer.kind === "json") {
    return new Response(answer.body, {
      headers: { "content-type": "application/json", ...answer.headers, ...ids },
    });
  }
  return new Response(answer.stream, {
    headers: {
      "content-type": answer.contentType,
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      ...answer.headers,
      ...ids,
    },
  });
}

/** A handler that checks the JSON body with `schema` and serves it as `inboundOf` says. */
export function textHandler<T extends z.ZodType<{ model: string }>>(
  gateway: Gateway,
  { schema, inboundOf }: {
    schema: T;
    inboundOf: (request: z.infer<T>, hints: ClientHints) => TextInbound;
  },
) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const body = await readJsonBody(c.req.raw, gateway.options.maxBodyBytes);
    const request = validate(schema, body);
    c.get("context").model = request.model;
    const inbound = inboundOf(request, c.get("scope").clientHints);
    inbound.strictFields = c.req.header("x-gateway-strict-fields")?.toLowerCase() === "true";
    return textResponse(await serveText(c.get("scope"), inbound));
  };
}
