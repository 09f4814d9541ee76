/** Admin routes for tasks: the list with filters, and one task with its billing. */

import { Hono } from "hono";
import { taskBilling } from "../../core/tasks/task_billing.ts";
import type { TaskFilter } from "../../core/tasks/task_store.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import {
  enumQuery,
  jsonAnswer,
  pageAnswer,
  serveRoute,
  TEXT_QUERY,
} from "../openapi/declare_route.ts";
import { idParam, queryChoice, queryValue } from "../params.ts";
import {
  adminBody,
  adminRoute,
  KEY_FILTER,
  keyFilter,
  LIST_QUERY,
  listed,
  listOptions,
} from "./shared.ts";
import { z } from "zod";
import { validate } from "../validation.ts";

/**
 * The operator's answer to a task held after a submission that got no answer: the upstream task
 * they found in the provider's console (`upstream_id`), or that there is none (`resubmit`).
 */
export const taskResolveSchema = z.union([
  z.strictObject({ upstream_id: z.string().min(1).max(200) }),
  z.strictObject({ resubmit: z.literal(true) }),
], { error: 'send {"upstream_id": "<the upstream task id>"} or {"resubmit": true}' });

export const TASK_STATUSES = ["submitted", "in_progress", "succeeded", "failed"] as const;

/** `?kind=&status=&model=&key=` of the task list. */
export function taskFilter(url: URL): TaskFilter {
  return {
    kind: queryChoice(url, "kind", { allowed: ["image", "video"], fallback: undefined }),
    status: queryChoice(url, "status", { allowed: TASK_STATUSES, fallback: undefined }),
    model: queryValue(url, "model") || undefined,
    key: keyFilter(url),
  };
}

const taskNotFound = (id: string) =>
  new GatewayError("task_not_found", 404, `No task has the id '${id}'`);

const listTasks = adminRoute({
  method: "get",
  path: "/admin/tasks",
  summary: "Image and video task records",
  query: [
    ...LIST_QUERY,
    KEY_FILTER,
    {
      name: "kind",
      description: "`image` or `video`",
      schema: enumQuery(["image", "video"]),
    },
    {
      name: "status",
      description: "the task's status",
      schema: enumQuery(["submitted", "in_progress", "succeeded", "failed"]),
    },
    { name: "model", description: "a model id", schema: TEXT_QUERY },
  ],
  answers: pageAnswer("task records"),
});

const readTask = adminRoute({
  method: "get",
  path: "/admin/tasks/{id}",
  summary: "A task with its billing: held, settled, refunded and its ledger entry ids",
  answers: { "200": jsonAnswer("the task record with `billing`") },
});

const resolveTask = adminRoute({
  method: "post",
  path: "/admin/tasks/{id}/resolve",
  summary: "Resolve a task held for the operator (submission_unknown.needs_operator): attach the " +
    "upstream task found, or submit it again",
  body: { name: "TaskResolve", schema: taskResolveSchema },
  answers: { "200": jsonAnswer("the task record") },
});

export function adminTaskRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, listTasks, async (c) => {
    const url = c.get("url");
    const options = listOptions(url);
    const filter = taskFilter(url);
    return c.json(await listed(options, () => gateway.tasks.list(options, filter)));
  });
  serveRoute(app, readTask, async (c) => {
    const id = idParam(c, "id", { shape: "task", notFound: taskNotFound });
    const task = await gateway.tasks.get(id);
    if (!task) throw taskNotFound(id);
    return c.json({ ...task, billing: await taskBilling(gateway.kv, task) });
  });
  serveRoute(app, resolveTask, async (c) => {
    const id = idParam(c, "id", { shape: "task", notFound: taskNotFound });
    const input = validate(taskResolveSchema, await adminBody(c.req.raw));
    const task = await gateway.tasks.resolveUnknown(
      id,
      "upstream_id" in input ? { upstreamId: input.upstream_id } : { resubmit: true },
    );
    return c.json(task);
  });
  return app;
}
