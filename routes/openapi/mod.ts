/** GET /openapi.json: the OpenAPI 3.1 document of every route, built once on first request. */

import { Hono } from "hono";
import type { AppEnv } from "../middleware.ts";
import { openApiDocument } from "./document.ts";
import { API_ROUTES } from "./route_table.ts";

export function openApiRoutes() {
  const app = new Hono<AppEnv>();
  let document: string | undefined;
  app.get("/openapi.json", (c) => {
    document ??= JSON.stringify(openApiDocument(API_ROUTES));
    return c.body(document, 200, { "content-type": "application/json" });
  });
  return app;
}
