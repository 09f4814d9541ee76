/**
 * A route is declared once, beside its handler: `declareRoute` states its method, path, summary,
 * credentials, the zod schema its handler validates the body with, and its answers; `serveRoute`
 * serves it on a Hono app and records the declaration, from which routes/openapi/document.ts
 * builds /openapi.json. (The shape of `@hono/zod-openapi`'s `createRoute` and `app.openapi`,
 * with the gateway's own body readers, error envelopes and JSON Schemas.)
 */

import type { Hono } from "hono";
import type { H } from "hono/types";
import type { z } from "zod";
import type { AppEnv } from "../middleware.ts";

/**
 * Who may call a route: the admin token, a client key in the forms of an interface, a member's
 * personal access token (the account API), or anyone.
 */
export type RouteSecurity =
  | "admin"
  | "access_token"
  | "openai"
  | "anthropic"
  | "gemini"
  | "any_key"
  | "metrics"
  | "none";

/** The error envelope a route answers errors in. */
export type ErrorEnvelope = "admin" | "openai" | "anthropic" | "gemini";

export interface RouteBody {
  /** The component name of the body's schema. */
  name: string;
  /** The schema the handler validates the body with. */
  schema: z.ZodType;
  /** multipart/form-data: the file fields beside the schema's text fields. */
  files?: Record<string, string>;
}

export interface QueryParameter {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

export interface ApiRoute<Path extends string = string> {
  method: "get" | "head" | "post" | "put" | "patch" | "delete";
  /** The OpenAPI path (`/admin/keys/{id}`); served as `/admin/keys/:id` unless `registeredAs`. */
  path: Path;
  /** The Hono path when it is not `path` with `{x}` as `:x` (a pattern, several operations). */
  registeredAs?: string;
  tag: string;
  summary: string;
  security: RouteSecurity;
  errors: ErrorEnvelope;
  body?: RouteBody;
  query?: QueryParameter[];
  /** Success status → what it answers; a string names a component schema of the answer. */
  answers: Record<string, { description: string; schema?: string; contentType?: string }>;
}

/** `/admin/keys/{id}` as Hono writes it, for the handlers' parameter types. */
type HonoPathOf<Path extends string> = Path extends `${infer Head}{${infer Name}}${infer Tail}`
  ? `${Head}:${Name}${HonoPathOf<Tail>}`
  : Path;

/** Every served route, by `method path`: serving again (another app) replaces, never adds. */
const DECLARED = new Map<string, ApiRoute>();

/** `/admin/keys/{id}` as Hono writes it: `/admin/keys/:id`. */
const honoPath = (route: ApiRoute) =>
  route.registeredAs ?? route.path.replace(/\{([^}]+)\}/g, ":$1");

/** A route's declaration, its path kept literal so that handlers read typed parameters. */
export function declareRoute<const Path extends string>(route: ApiRoute<Path>): ApiRoute<Path> {
  return route;
}

/**
 * Serves `routes` on `app` with `handlers` and records them for the OpenAPI document. Several
 * routes are several documented operations one Hono route serves (GET and HEAD of a path,
 * Gemini's `{model}:generateContent` and its siblings); they share one Hono path.
 */
export function serveRoute<Path extends string>(
  app: Hono<AppEnv>,
  routes: ApiRoute<Path> | readonly ApiRoute<Path>[],
  ...handlers: H<AppEnv, HonoPathOf<NoInfer<Path>>>[]
): void {
  const list: readonly ApiRoute[] = Array.isArray(routes) ? routes : [routes as ApiRoute];
  const path = honoPath(list[0]);
  if (list.some((route) => honoPath(route) !== path)) {
    throw new Error(`Routes served by one handler share one Hono path (${path})`);
  }
  for (const route of list) DECLARED.set(`${route.method} ${route.path}`, route);
  const methods = [...new Set(list.map((route) => route.method.toUpperCase()))];
  app.on(methods, [path], ...(handlers as H<AppEnv>[]));
}

/** Every route served so far, by any app, in the order first served. */
export function declaredRoutes(): readonly ApiRoute[] {
  return [...DECLARED.values()];
}

/** The declared routes among `served` (an app's `routes`): what that app serves. */
export function routesServedBy(
  served: readonly { method: string; path: string }[],
): readonly ApiRoute[] {
  const registered = new Set(served.map(({ method, path }) => `${method} ${path}`));
  return declaredRoutes().filter((route) =>
    registered.has(`${route.method.toUpperCase()} ${honoPath(route)}`)
  );
}
/** A JSON answer. */
export const jsonAnswer = (description: string, schema?: string) => ({ description, schema });
/** 201 with a JSON answer. */
export const createdAnswer = (description: string) => ({ "201": jsonAnswer(description) });
/** 204, no body. */
export const deletedAnswer = { "204": { description: "deleted; no body" } };
/** 200 with a page `{data, cursor}`. */
export const pageAnswer = (description: string, schema?: string) => ({
  "200": jsonAnswer(`{data: [${description}], cursor}`, schema),
});

/** The JSON Schemas of query parameters. */
export const integerQuery = (minimum: number, maximum: number) => ({
  type: "integer",
  minimum,
  maximum,
});
export const TEXT_QUERY = { type: "string" };
export const TIME_QUERY = { type: "string", format: "date-time" };
export const enumQuery = (values: readonly string[]) => ({ type: "string", enum: [...values] });
