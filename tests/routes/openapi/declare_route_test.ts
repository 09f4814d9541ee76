import { Hono } from "hono";
import type { AppEnv } from "../../../routes/middleware.ts";
import {
  declaredRoutes,
  declareRoute,
  jsonAnswer,
  routesServedBy,
  serveRoute,
} from "../../../routes/openapi/declare_route.ts";
import { openApiDocument } from "../../../routes/openapi/document.ts";
import { assertEquals, assertOk, assertThrows } from "../../helpers/assert.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const route = (method: "get" | "head", path: string, registeredAs?: string) =>
  declareRoute({
    method,
    path,
    registeredAs,
    tag: "test",
    summary: `A test route at ${path}`,
    security: "none",
    errors: "openai",
    answers: { "200": jsonAnswer("its id") },
  });

Deno.test("declare route: served at its path in Hono's form, and in the document", async () => {
  const app = new Hono<AppEnv>();
  serveRoute(
    app,
    route("get", "/declared/{id}/things/{thing_id}"),
    (c) => c.json([c.req.param("id"), c.req.param("thing_id")]),
  );
  const response = await app.request("/declared/a/things/b");
  assertEquals(await response.json(), ["a", "b"]);

  const declared = routesServedBy(app.routes);
  assertEquals(declared.map((entry) => entry.path), ["/declared/{id}/things/{thing_id}"]);
  const document: Json = openApiDocument(declared);
  const operation = document.paths["/declared/{id}/things/{thing_id}"].get;
  assertEquals(operation.summary, "A test route at /declared/{id}/things/{thing_id}");
  assertEquals(operation.parameters.map((p: { name: string }) => p.name), ["id", "thing_id"]);
});

Deno.test("declare route: an app's document lists its own routes; serving again never adds", () => {
  const count = () => declaredRoutes().filter((entry) => entry.path === "/declared-twice").length;
  const first = new Hono<AppEnv>();
  serveRoute(first, route("get", "/declared-twice"), (c) => c.text("1"));
  serveRoute(new Hono<AppEnv>(), route("get", "/declared-twice"), (c) => c.text("2"));
  assertEquals(count(), 1);
  const other = new Hono<AppEnv>();
  serveRoute(other, route("get", "/declared-elsewhere"), (c) => c.text("3"));
  assertEquals(routesServedBy(first.routes).map((entry) => entry.path), ["/declared-twice"]);
});

Deno.test("declare route: operations of one handler share one Hono path", async () => {
  const app = new Hono<AppEnv>();
  serveRoute(
    app,
    ["one", "two"].map((name) =>
      route("get", `/shared/{target}:${name}`, "/shared/:target{[^/]+:(?:one|two)}")
    ),
    (c) => c.text(c.req.param("target") ?? ""),
  );
  assertEquals(await (await app.request("/shared/x:two")).text(), "x:two");
  assertOk(declaredRoutes().some((entry) => entry.path === "/shared/{target}:one"));
  assertThrows(() =>
    serveRoute(
      new Hono<AppEnv>(),
      [route("get", "/apart/one"), route("get", "/apart/two")],
      (c) => c.text(""),
    )
  );
});
