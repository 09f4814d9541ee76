/**
 * The account API in /openapi.json: every route declared, tagged `account`, with the personal
 * access token's security scheme, OpenAI-style errors, and bodies from the validating schemas.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { jsonSchemaOf } from "../../../routes/openapi/document.ts";
import { memberKeyInputSchema } from "../../../core/account_area/member_key_schema.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ROUTES = [
  "get /v1/account",
  "get /v1/account/models",
  "get /v1/account/keys",
  "post /v1/account/keys",
  "get /v1/account/keys/{id}",
  "patch /v1/account/keys/{id}",
  "delete /v1/account/keys/{id}",
  "post /v1/account/keys/{id}/rotate",
  "get /v1/account/usage",
  "get /v1/account/requests",
  "get /v1/account/requests/{id}",
  "get /v1/account/tasks",
  "get /v1/account/ledger",
  "post /v1/account/redeem",
];

Deno.test(
  "openapi: the account API's routes, with the personal access token scheme",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const document: Json = await (await fetch(`${gw.url}/openapi.json`)).json();
    const declared = Object.entries<Json>(document.paths)
      .filter(([path]) => path === "/v1/account" || path.startsWith("/v1/account/"))
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    assertEquals(declared.sort(), [...ROUTES].sort());
    for (const route of ROUTES) {
      const [method, path] = route.split(" ");
      const operation = document.paths[path][method];
      assertEquals(operation.security, [{ accessToken: [] }], route);
      assertEquals(operation.tags, ["account"], route);
      assertEquals(operation.responses["4XX"], { $ref: "#/components/responses/OpenAIError" });
    }
    const scheme = document.components.securitySchemes.accessToken;
    assertEquals([scheme.type, scheme.scheme], ["http", "bearer"]);
    assertOk(scheme.description.includes("gwpat-"));
    assertEquals(document.components.schemas.AccountKeyInput, jsonSchemaOf(memberKeyInputSchema));
    const usage = document.paths["/v1/account/usage"].get.parameters.map((p: Json) => p.name);
    assertEquals(usage.sort(), ["from", "group_by", "interval", "to"]);
  },
);
