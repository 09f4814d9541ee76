/**
 * Builds the OpenAPI 3.1 document from the routes the app serves (declare_route.ts): request
 * bodies are the JSON Schema of the zod schemas that validate them, so the document and the
 * checks cannot drift apart.
 */

import { z } from "zod";
import { GATEWAY_NAME, GATEWAY_VERSION } from "../../core/version.ts";
import { ADMIN_ERROR_CODES } from "./admin_error_codes.ts";
import type { ApiRoute, ErrorEnvelope, RouteBody, RouteSecurity } from "./declare_route.ts";

type Json = Record<string, unknown>;

const SECURITY_SCHEMES = {
  adminToken: {
    type: "http",
    scheme: "bearer",
    description: "GATEWAY_ADMIN_TOKEN, as `Authorization: Bearer <token>`",
  },
  accessToken: {
    type: "http",
    scheme: "bearer",
    description: "A member's personal access token (`gwpat-…`, made in the console's Settings); " +
      "API keys and the admin token are refused",
  },
  keyBearer: { type: "http", scheme: "bearer", description: "A client key as a bearer token" },
  keyHeader: {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "A client key (Anthropic SDKs)",
  },
  googApiKey: {
    type: "apiKey",
    in: "header",
    name: "x-goog-api-key",
    description: "A client key (Google SDKs)",
  },
  vendorApiKey: {
    type: "apiKey",
    in: "header",
    name: "x-vendor-api-key",
    description: "A client key (the spec's neutral name for x-goog-api-key)",
  },
  keyQuery: {
    type: "apiKey",
    in: "query",
    name: "key",
    description: "A client key as `?key=` (Gemini REST)",
  },
  metricsToken: {
    type: "http",
    scheme: "bearer",
    description: "GATEWAY_METRICS_TOKEN, when it is set",
  },
};

const SECURITY: Record<RouteSecurity, Array<Record<string, string[]>>> = {
  admin: [{ adminToken: [] }],
  access_token: [{ accessToken: [] }],
  openai: [{ keyBearer: [] }],
  anthropic: [{ keyHeader: [] }, { keyBearer: [] }],
  gemini: [{ googApiKey: [] }, { vendorApiKey: [] }, { keyQuery: [] }, { keyBearer: [] }],
  any_key: [{ keyBearer: [] }, { keyHeader: [] }, { googApiKey: [] }, { keyQuery: [] }],
  metrics: [{}, { metricsToken: [] }],
  none: [],
};

const ERROR_RESPONSES: Record<ErrorEnvelope, string> = {
  admin: "AdminError",
  openai: "OpenAIError",
  anthropic: "AnthropicError",
  gemini: "GeminiError",
};

const nullable = (schema: Json) => ({ anyOf: [schema, { type: "null" }] });
const string = { type: "string" };

/** The error envelopes and the audit record, written out (they are answers, not checked input). */
const ANSWER_SCHEMAS: Record<string, Json> = {
  AdminErrorCode: {
    description: "The stable machine code of an admin error (new codes may be added)",
    oneOf: ADMIN_ERROR_CODES.map(({ code, status, meaning }) => ({
      const: code,
      description: `${status}: ${meaning}`,
    })),
  },
  AdminError: {
    description: "Every admin error: one shape, the OpenAI envelope, with a stable `code`",
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["message", "type", "code", "param", "request_id"],
        properties: {
          message: { ...string, description: "What went wrong and what to do, for a person" },
          type: { ...string, description: "The OpenAI error type (invalid_request_error, …)" },
          code: { $ref: "#/components/schemas/AdminErrorCode" },
          param: { ...nullable(string), description: "The field or parameter at fault" },
          request_id: string,
        },
      },
    },
  },
  OpenAIError: {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["message", "type", "code"],
        properties: {
          message: string,
          type: string,
          code: string,
          param: nullable(string),
          request_id: string,
        },
      },
    },
  },
  AnthropicError: {
    type: "object",
    required: ["type", "error"],
    properties: {
      type: { const: "error" },
      error: {
        type: "object",
        required: ["type", "message"],
        properties: { type: string, message: string, code: string },
      },
      request_id: string,
    },
  },
  GeminiError: {
    description: "google.rpc.Status: the HTTP status and `code` are the ones google.rpc.Code " +
      "gives `status`",
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message", "status", "details"],
        properties: {
          code: { type: "integer", description: "The HTTP status" },
          message: string,
          status: { ...string, description: "The google.rpc.Code name (NOT_FOUND, …)" },
          details: {
            type: "array",
            items: {
              type: "object",
              required: ["@type"],
              properties: {
                "@type": string,
                reason: {
                  ...string,
                  description: "google.rpc.ErrorInfo: the gateway's code in UPPER_SNAKE_CASE",
                },
              },
            },
          },
        },
      },
    },
  },
  AuditRecord: {
    type: "object",
    required: [
      "id",
      "at",
      "actor",
      "client_address",
      "method",
      "route",
      "target",
      "before",
      "after",
      "status",
    ],
    properties: {
      id: string,
      at: { type: "string", format: "date-time" },
      actor: {
        ...string,
        description:
          "`admin_token`, `console:<session id>`, `config:<file>`, `pat:<access token id>` or " +
          "`gateway`",
      },
      client_address: nullable(string),
      method: string,
      route: {
        ...string,
        description: "The route template, or `config:models` / `config:channels`",
      },
      target: {
        type: "object",
        required: ["kind", "id"],
        properties: { kind: string, id: nullable(string) },
      },
      before: { description: "The target's public view before; null when it did not exist" },
      after: { description: "The target's public view after; null when gone or failed" },
      status: { type: "integer" },
      error_code: nullable(string),
      request_id: nullable(string),
    },
  },
  AuditPage: {
    type: "object",
    required: ["data", "cursor"],
    properties: {
      data: { type: "array", items: { $ref: "#/components/schemas/AuditRecord" } },
      cursor: nullable(string),
    },
  },
};

/** The JSON Schema of what a zod schema accepts (its input side). */
export function jsonSchemaOf(schema: z.ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  }) as Json;
  if ("$defs" in rest) {
    throw new Error("A request schema with $defs cannot be a component; inline it");
  }
  return rest;
}

function bodySchema(body: RouteBody): Json {
  const schema = jsonSchemaOf(body.schema);
  if (!body.files) return schema;
  const file = { type: "string", contentMediaType: "application/octet-stream" };
  const files = Object.fromEntries(
    Object.entries(body.files).map(([name, description]) => [name, { ...file, description }]),
  );
  return {
    ...schema,
    properties: { ...(schema.properties as Json), ...files },
  };
}

function operation(route: ApiRoute, schemas: Json): Json {
  const pathParameters = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: string,
  }));
  const queryParameters = (route.query ?? []).map((parameter) => ({
    name: parameter.name,
    in: "query",
    required: false,
    description: parameter.description,
    schema: parameter.schema,
  }));
  const parameters = [...pathParameters, ...queryParameters];
  let requestBody: Json | undefined;
  if (route.body) {
    schemas[route.body.name] ??= bodySchema(route.body);
    const mediaType = route.body.files ? "multipart/form-data" : "application/json";
    requestBody = {
      required: true,
      content: { [mediaType]: { schema: { $ref: `#/components/schemas/${route.body.name}` } } },
    };
  }
  const responses: Json = {};
  for (const [status, answer] of Object.entries(route.answers)) {
    const schema = answer.schema ? { $ref: `#/components/schemas/${answer.schema}` } : {};
    responses[status] = status === "204" || route.method === "head"
      ? { description: answer.description }
      : {
        description: answer.description,
        content: { [answer.contentType ?? "application/json"]: { schema } },
      };
  }
  const error = { $ref: `#/components/responses/${ERROR_RESPONSES[route.errors]}` };
  responses["4XX"] = error;
  responses["5XX"] = error;
  return {
    operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+/g, "_")}`.replace(/_$/, ""),
    tags: [route.tag],
    summary: route.summary,
    security: SECURITY[route.security],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** The order of tags (and so of paths) in the document: clients' interfaces first, admin last. */
const TAG_ORDER = [
  "operations",
  "openai",
  "anthropic",
  "gemini",
  "images",
  "video",
  "audio",
  "models",
  "self",
  "account",
];

const tagRank = (tag: string) => {
  const rank = TAG_ORDER.indexOf(tag);
  return rank < 0 ? TAG_ORDER.length : rank;
};

/** The OpenAPI 3.1 document of `routes`, grouped by tag in TAG_ORDER, else as given. */
export function openApiDocument(given: readonly ApiRoute[]): Json {
  const routes = [...given].sort((a, b) => tagRank(a.tag) - tagRank(b.tag));
  const schemas: Json = {};
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method] = operation(route, schemas);
  }
  const errorResponses = Object.fromEntries(
    Object.values(ERROR_RESPONSES).map((name) => [name, {
      description: `An error in the ${name.replace("Error", "")} envelope`,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
    }]),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: GATEWAY_NAME,
      version: GATEWAY_VERSION,
      description: "A multi-modal model gateway: the OpenAI, Anthropic and Gemini interfaces for " +
        "text, images and video tasks, and the admin API. Money is in integer units " +
        "(1 unit = 0.000001 of the currency).",
    },
    servers: [{ url: "/" }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...schemas, ...ANSWER_SCHEMAS },
      responses: errorResponses,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
