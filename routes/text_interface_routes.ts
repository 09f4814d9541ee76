/**
 * The shared text route: every row of the table of text interfaces that declares a shared route
 * (core/formats/text_interface.ts `sharedRoute`) is served here, its key read and its errors
 * written as its family says. The four formats of the first rows have route files of their own.
 */

import { Hono } from "hono";
import type { Gateway } from "../core/gateway.ts";
import { textInterfaces } from "../core/formats/interfaces.ts";
import { inboundOf } from "../core/text/inbound.ts";
import { type AppEnv, requireKey } from "./middleware.ts";
import { textHandler } from "./text_answer.ts";

export function textInterfaceRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  for (const row of textInterfaces()) {
    const shared = row.sharedRoute;
    if (!shared) continue;
    app.post(
      shared.path,
      requireKey(gateway, row.family.name),
      textHandler(gateway, {
        schema: shared.schema,
        inboundOf: (body) => inboundOf(row.format, body),
      }),
    );
  }
  return app;
}
