/** GET /openapi.json: the OpenAPI 3.1 document of every served route, built on first request. */

import { Hono } from "hono";
import type { AppEnv } from "../middleware.ts";
import { openApiDocument } from "./document.ts";
import { declareRoute, jsonAnswer, routesServedBy, serveRoute } from "./declare_route.ts";

const openApiJson = declareRoute({
  method: "get",
  path: "/openapi.json",
  tag: "operations",
  summary: "This document",
  security: "none",
  errors: "openai",
  answers: { "200": jsonAnswer("the OpenAPI 3.1 document") },
});

/** `served`: the app's routes once mounted (`app.routes`); the document lists those declared. */
export function openApiRoutes(served: () => readonly { method: string; path: string }[]) {
  const app = new Hono<AppEnv>();
  let document: string | undefined;
  serveRoute(app, openApiJson, (c) => {
    // Built on first request, when createApp has served (and so declared) every route.
    document ??= JSON.stringify(openApiDocument(routesServedBy(served())));
    return c.body(document, 200, { "content-type": "application/json" });
  });
  return app;
}
