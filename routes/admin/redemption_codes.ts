/**
 * Admin routes for redemption codes: make a batch (its codes are in that answer only), list
 * batches and their codes' states, export those states as CSV, disable a batch or one code.
 * Redeeming is not here: it is the account's (core/accounts/redemption_codes.ts).
 */

import { Hono } from "hono";
import type { Gateway } from "../../core/gateway.ts";
import { codesCsv } from "../../core/accounts/redemption_csv.ts";
import { CODE_STATES, redemptionBatchInputSchema } from "../../core/accounts/redemption_records.ts";
import { batchNotFound, codeIdNotFound } from "../../core/accounts/redemption_store.ts";
import type { AppEnv } from "../middleware.ts";
import {
  createdAnswer,
  enumQuery,
  integerQuery,
  jsonAnswer,
  pageAnswer,
  serveRoute,
  TEXT_QUERY,
} from "../openapi/declare_route.ts";
import {
  hasIdShape,
  ID_SHAPES,
  idParam,
  invalidQueryParameter,
  queryChoice,
  queryInteger,
  queryValue,
} from "../params.ts";
import { validate } from "../validation.ts";
import { adminBody, adminRoute, LIST_QUERY, listed, listOptions } from "./shared.ts";

const createBatch = adminRoute({
  method: "post",
  path: "/admin/redemption-batches",
  summary: "Make a batch of redemption codes; the codes are in this answer only",
  body: { name: "RedemptionBatchInput", schema: redemptionBatchInputSchema },
  answers: createdAnswer("the batch with `codes` [{id, code}], shown once"),
});

const listBatches = adminRoute({
  method: "get",
  path: "/admin/redemption-batches",
  summary: "List redemption batches, newest first",
  query: LIST_QUERY.filter((parameter) => !["since", "until"].includes(parameter.name)),
  answers: pageAnswer("batches"),
});

const readBatch = adminRoute({
  method: "get",
  path: "/admin/redemption-batches/{id}",
  summary: "A batch with the count of its codes in each state",
  answers: { "200": jsonAnswer("the batch with `states`") },
});

const CODE_QUERY = [
  {
    name: "state",
    description: "only codes in this state",
    schema: enumQuery(CODE_STATES),
  },
  {
    name: "limit",
    description: "codes a page, 1-1000 (default 100)",
    schema: integerQuery(1, 1000),
  },
  { name: "cursor", description: "the `cursor` of the previous page", schema: TEXT_QUERY },
];

const listCodes = adminRoute({
  method: "get",
  path: "/admin/redemption-batches/{id}/codes",
  summary: "A batch's codes with their states (never the codes themselves), in creation order",
  query: CODE_QUERY,
  answers: pageAnswer("codes: id, state, redeemed_by, wallet_id, redeemed_at, disabled_at"),
});

const exportCodes = adminRoute({
  method: "get",
  path: "/admin/redemption-batches/{id}/codes.csv",
  summary: "A batch's codes' states as CSV: id, state, redeemed_by, redeemed_at",
  answers: { "200": { description: "CSV with a header row", contentType: "text/csv" } },
});

const disableBatch = adminRoute({
  method: "post",
  path: "/admin/redemption-batches/{id}/disable",
  summary: "Disable a batch: none of its unused codes may be redeemed any more",
  answers: { "200": jsonAnswer("the batch with `states`") },
});

const disableCode = adminRoute({
  method: "post",
  path: "/admin/redemption-codes/{id}/disable",
  summary: "Disable one unused code (409 `code_redeemed` once redeemed)",
  answers: { "200": jsonAnswer("the code's state") },
});

export function adminRedemptionRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  const store = gateway.redemptions.store;
  const batchId = (c: Parameters<typeof idParam>[0]) =>
    idParam(c, "id", { shape: "redemptionBatch", notFound: batchNotFound });

  serveRoute(app, createBatch, async (c) => {
    const input = validate(redemptionBatchInputSchema, await adminBody(c.req.raw));
    const { batch, codes } = await store.createBatch(input);
    c.header("cache-control", "no-store");
    return c.json({ ...batch, codes }, 201);
  });
  serveRoute(app, listBatches, async (c) => {
    const { since: _since, until: _until, ...options } = listOptions(c.get("url"));
    return c.json(await listed(options, () => store.listBatches(options)));
  });
  serveRoute(app, readBatch, async (c) => c.json(await store.summary(batchId(c))));
  serveRoute(app, listCodes, async (c) => {
    const id = batchId(c);
    const url = c.get("url");
    const state = queryChoice(url, "state", { allowed: CODE_STATES, fallback: undefined });
    const limit = queryInteger(url, "limit", { min: 1, max: 1000, fallback: 100 });
    const after = queryValue(url, "cursor") || undefined;
    if (after !== undefined && !hasIdShape(after, "redemptionCode")) {
      throw invalidQueryParameter(
        "cursor",
        `must be a cursor this list gave (${ID_SHAPES.redemptionCode.looksLike})`,
      );
    }
    return c.json(await store.codes(id, { state, limit, after }));
  });
  serveRoute(app, exportCodes, async (c) => {
    const id = batchId(c);
    const { data } = await store.codes(id);
    return new Response(codesCsv(data), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${id}-codes.csv"`,
      },
    });
  });
  serveRoute(app, disableBatch, async (c) => c.json(await store.disableBatch(batchId(c))));
  serveRoute(app, disableCode, async (c) => {
    const id = idParam(c, "id", { shape: "redemptionCode", notFound: codeIdNotFound });
    return c.json(await store.disableCode(id));
  });
  return app;
}
