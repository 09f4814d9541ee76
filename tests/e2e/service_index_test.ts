/** GET / and HEAD / on the real server: the service's name, version and where to read on. */

import { assertEquals } from "../helpers/assert.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import { GATEWAY_VERSION } from "../../core/version.ts";

Deno.test(
  "GET / answers name, version, docs, openapi and console; HEAD / the same status",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const get = await fetch(`${gw.url}/`);
    assertEquals(get.status, 200);
    assertEquals(get.headers.get("content-type"), "application/json");
    const body = await get.json();
    assertEquals(Object.keys(body).sort(), ["console", "docs", "name", "openapi", "version"]);
    assertEquals([body.version, body.openapi, body.console], [
      GATEWAY_VERSION,
      "/openapi.json",
      "/console",
    ]);
    const head = await fetch(`${gw.url}/`, { method: "HEAD" });
    assertEquals(head.status, 200);
    assertEquals(await head.text(), "");
    assertEquals(typeof head.headers.get("x-request-id"), "string");
  },
);
