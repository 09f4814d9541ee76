import { assertEquals } from "../helpers/assert.ts";
import { areaOf, profileAreas } from "../../bench/profile_areas.ts";

Deno.test("areaOf names project folders, npm packages, Deno extensions and V8's own", () => {
  const frame = (url: string, functionName = "f") => ({ url, functionName });
  assertEquals(areaOf(frame("file:///x/core/billing/ledger.ts")), "core/billing");
  assertEquals(areaOf(frame("file:///x/routes/middleware.ts")), "routes");
  assertEquals(areaOf(frame("file:///x/core/gateway.ts")), "core/gateway.ts");
  assertEquals(
    areaOf(frame("file:///r/deno/npm/registry.npmjs.org/hono/4.13.19/dist/hono.js")),
    "npm:hono",
  );
  assertEquals(
    areaOf(frame("file:///r/npm/registry.npmjs.org/@remix-run/multipart-parser/0.16.3/x.js")),
    "npm:@remix-run/multipart-parser",
  );
  assertEquals(areaOf(frame("ext:deno_http/00_serve.ts")), "ext:deno_http");
  assertEquals(areaOf(frame("", "(garbage collector)")), "(garbage collector)");
  assertEquals(areaOf(frame("", "JSON.parse")), "(native)");
});

Deno.test("profileAreas sums self time by area, largest first", () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: { url: "", functionName: "(idle)" } },
      { id: 2, callFrame: { url: "file:///x/core/kv/a.ts", functionName: "a" } },
    ],
    samples: [1, 2, 2],
    timeDeltas: [1000, 3000, 2000],
  };
  assertEquals(profileAreas(profile), [
    { name: "core/kv", selfMs: 5 },
    { name: "(idle)", selfMs: 1 },
  ]);
});
