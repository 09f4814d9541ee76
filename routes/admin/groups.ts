/** Admin routes for group records: a group's description and price multiplier (price tier). */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import { groupInputSchema } from "../../core/accounts/group_schema.ts";
import { checkGroupName } from "../../core/accounts/group_store.ts";
import type { AppEnv } from "../middleware.ts";
import { deletedAnswer, jsonAnswer, pageAnswer, serveRoute } from "../openapi/declare_route.ts";
import { validate } from "../validation.ts";
import { adminBody, adminRoute } from "./shared.ts";

const listGroups = adminRoute({
  method: "get",
  path: "/admin/groups",
  summary: "Group records with their price multipliers (a group without one is ×1)",
  answers: pageAnswer("group records"),
});

const readGroup = adminRoute({
  method: "get",
  path: "/admin/groups/{name}",
  summary: "Read a group record",
  answers: { "200": jsonAnswer("the group record") },
});

const putGroup = adminRoute({
  method: "put",
  path: "/admin/groups/{name}",
  summary: "Write a group record whole: description, price_multiplier (> 0, ≤ 10, default 1)",
  body: { name: "GroupInput", schema: groupInputSchema },
  answers: { "200": jsonAnswer("the group record") },
});

const deleteGroup = adminRoute({
  method: "delete",
  path: "/admin/groups/{name}",
  summary: "Delete a group record: its requests are priced ×1 again",
  answers: deletedAnswer,
});

export function adminGroupRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, listGroups, (c) => c.json({ data: gateway.groups.list(), cursor: null }));
  serveRoute(
    app,
    readGroup,
    async (c) => c.json(await gateway.groups.get(checkGroupName(c.req.param("name")))),
  );
  serveRoute(app, putGroup, async (c) => {
    const name = checkGroupName(c.req.param("name"));
    const input = validate(groupInputSchema, await adminBody(c.req.raw));
    return c.json(await gateway.groups.put(name, input));
  });
  serveRoute(app, deleteGroup, async (c) => {
    await gateway.groups.delete(checkGroupName(c.req.param("name")));
    return c.body(null, 204);
  });
  return app;
}
