/** GET /openapi.json: the OpenAPI 3.1 document of every served route, built on first request. */

import { Hono } from "hono";
import type { AppEnv } from "../middleware.ts";
import { openApiDocument } from "./document.ts";
import { declareRoute, jsonAnswer, serveRoute } from "./declare_route.ts";
import { declaredRoutes } from "./declare_route.ts";

const openApiJson = declareRoute({
  method: "get",
  path: "/openapi.json",
  tag: "operations",
  summary: "This document",
  security: "none",
  errors: "openai",
  answers: { "200": jsonAnswer("the OpenAPI 3.1 document") },
});

export function openApiRoutes() {
  const app = new Hono<AppEnv>();
  let document: string | undefined;
  serveRoute(app, openApiJson, (c) => {
    // Built on first request, when createApp has served (and so declared) every route.
    document ??= JSON.stringify(openApiDocument(declaredRoutes()));
    return c.body(document, 200, { "content-type": "application/json" });
  });
  return app;
}
