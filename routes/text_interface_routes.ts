/**
 * The shared text route: every row of the table of text interfaces that declares a shared route
 * (core/formats/text_interface.ts `sharedRoute`) is served here, its key read and its errors
 * written as its family says, and declared for /openapi.json. The four formats of the first rows
 * have route files of their own.
 */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { textInterfaces } from "../core/formats/interfaces.ts";
import { inboundOf } from "../core/text/inbound.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textHandler } from "./text_answer.ts";
import {
  declareRoute,
  type ErrorEnvelope,
  jsonAnswer,
  serveRoute,
} from "./openapi/declare_route.ts";

/** The envelopes the OpenAPI document describes; a new family's is documented as OpenAI's. */
const DOCUMENTED_ENVELOPES: readonly string[] = ["openai", "anthropic", "gemini"];

export function textInterfaceRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  for (const row of textInterfaces()) {
    const shared = row.sharedRoute;
    if (!shared) continue;
    const envelope = DOCUMENTED_ENVELOPES.includes(row.family.name)
      ? row.family.name as ErrorEnvelope
      : "openai";
    const route = declareRoute({
      method: "post",
      path: shared.path,
      tag: row.name,
      summary: `The ${row.name} text interface`,
      security: envelope === "openai" ? "any_key" : envelope,
      errors: envelope,
      body: { name: `${row.name}Request`, schema: shared.schema },
      answers: { "200": jsonAnswer("an answer in the interface's format, or its stream") },
    });
    serveRoute(
      app,
      route,
      requireKey(gateway, row.family.name),
      textHandler(gateway, {
        schema: shared.schema,
        inboundOf: (body) => inboundOf(row.format, body),
      }),
    );
  }
  return app;
}
