/**
 * GET /openapi.json on the real server: a valid OpenAPI 3.1 document (checked by an OpenAPI
 * validator), naming every route the app registers and no route it lacks, with request bodies
 * generated from the zod schemas that validate them, and the admin error codes.
 */

import { Validator } from "@seriousme/openapi-schema-validator";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest, startTestGateway } from "../helpers/gateway.ts";
import { createApp } from "../../app.ts";
import { jsonSchemaOf } from "../../routes/openapi/document.ts";
import { ADMIN_ERROR_CODES } from "../../routes/openapi/admin_error_codes.ts";
import { keyInputSchema } from "../../core/keys/key_schema.ts";
import { chatRequestSchema } from "../../core/formats/openai_chat/request_schema.ts";
import { GATEWAY_VERSION } from "../../core/version.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const METHODS = ["get", "head", "post", "put", "patch", "delete", "options"];

/**
 * A registered Hono path in the document's form: `:id` → `{id}`, a parameter's pattern dropped,
 * and a pattern ending in a choice of literal suffixes (`:model{…:(?:a|b)}`) one path per suffix.
 */
function documentPathsOf(path: string): string[] {
  const choice = path.match(/^(.*):(\w+)\{[^}]*:\(\?:([^)]+)\)\}$/);
  if (choice) {
    const [, head, name, suffixes] = choice;
    return suffixes.split("|").flatMap((suffix) =>
      documentPathsOf(`${head}:${name}`).map((prefix) => `${prefix}:${suffix}`)
    );
  }
  return [path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")];
}

Deno.test(
  "GET /openapi.json is a valid OpenAPI 3.1 document of every registered route",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const response = await fetch(`${gw.url}/openapi.json`);
    assertEquals(response.status, 200);
    const document: Json = await response.json();
    assertEquals([document.openapi, document.info.version], ["3.1.0", GATEWAY_VERSION]);

    const result = await new Validator().validate(document);
    assertOk(result.valid, `invalid OpenAPI document: ${JSON.stringify(result.errors, null, 2)}`);

    const documented = new Set<string>();
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const method of Object.keys(item).filter((name) => METHODS.includes(name))) {
        documented.add(`${method.toUpperCase()} ${path}`);
      }
    }
    const app = createApp(gw.running.gateway, "unused", () => true);
    const registered = new Set<string>();
    for (const route of app.routes) {
      if (route.method === "ALL") continue; // middleware (`*`, `/admin/*`)
      if (route.path.startsWith("/console")) continue; // HTML pages, not API (docs/console.md)
      for (const path of documentPathsOf(route.path)) registered.add(`${route.method} ${path}`);
    }
    registered.add("HEAD /"); // Hono answers HEAD with the GET route
    const undocumented = [...registered].filter((route) => !documented.has(route));
    assertEquals(undocumented, [], "routes served but not declared (declareRoute)");
    const stale = [...documented].filter((route) => !registered.has(route));
    assertEquals(stale, [], "documented routes the app does not serve");
  },
);

Deno.test(
  "GET /openapi.json: bodies are the validating zod schemas, with security schemes and error codes",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const document: Json = await (await fetch(`${gw.url}/openapi.json`)).json();
    const schemas = document.components.schemas;
    assertEquals(schemas.KeyInput, jsonSchemaOf(keyInputSchema));
    assertEquals(schemas.ChatCompletionsRequest, jsonSchemaOf(chatRequestSchema));
    assertEquals(
      document.paths["/admin/keys"].post.requestBody.content["application/json"].schema,
      { $ref: "#/components/schemas/KeyInput" },
    );
    assertOk(document.paths["/v1/images/edits"].post.requestBody.content["multipart/form-data"]);
    assertOk(schemas.VideoFields.properties.image_1 && schemas.ImageEditFields.properties.mask);
    // The task requests' callback_url, taken out before their schemas validate the rest.
    for (const name of ["ImageGenerationRequest", "ImageEditFields", "VideoFields"]) {
      assertEquals(schemas[name].properties.callback_url.type, "string", name);
      assertOk(!schemas[name].required?.includes("callback_url"), name);
    }
    assertEquals(schemas.ChatCompletionsRequest.properties.callback_url, undefined);

    const schemes = document.components.securitySchemes;
    assertEquals(
      [schemes.adminToken.scheme, schemes.keyBearer.scheme, schemes.keyHeader.name],
      ["bearer", "bearer", "x-api-key"],
    );
    assertEquals([schemes.googApiKey.name, schemes.keyQuery.in], ["x-goog-api-key", "query"]);
    assertEquals(document.paths["/admin/keys"].get.security, [{ adminToken: [] }]);
    assertEquals(document.paths["/v1/me"].get.security.length, 4);

    // Admin errors: one shape, and their codes are in the documented list.
    const codes = new Set(schemas.AdminErrorCode.oneOf.map((entry: Json) => entry.const));
    const seen = [
      await fetch(`${gw.url}/admin/keys`),
      await fetch(`${gw.url}/admin/keys/key_nope`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
      await fetch(`${gw.url}/admin/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: "{}",
      }),
    ];
    for (const answer of seen) {
      const body = await answer.json();
      assertEquals(Object.keys(body.error).sort(), [
        "code",
        "message",
        "param",
        "request_id",
        "type",
      ]);
      assertOk(codes.has(body.error.code), `undocumented admin error code ${body.error.code}`);
    }
    const adminDocs = await Deno.readTextFile(new URL("../../docs/admin-api.md", import.meta.url));
    for (const { code } of ADMIN_ERROR_CODES) {
      assertOk(adminDocs.includes(`\`${code}\``), `docs/admin-api.md does not list ${code}`);
    }
  },
);
