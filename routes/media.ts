/**
 * GET /media/{id}.{ext}: hosted media (image results, reference media for upstreams). No key:
 * the id is unguessable and expires. Single byte ranges are served (206) for players and resumes.
 * Every answer forbids sniffing and runs in a sandbox with nothing allowed, so even bytes that a
 * browser could take for a page can never run as one on the gateway's origin; a record of a type
 * the store does not host (none is written any more) is served as an attachment.
 */

import { Hono } from "hono";
import { GatewayError } from "../core/errors.ts";
import type { Gateway } from "../core/gateway.ts";
import { hostedExtension, parseRange } from "../core/media/media_store.ts";
import type { AppEnv } from "./middleware.ts";
import { declareRoute, serveRoute } from "./openapi/declare_route.ts";

const media = (["get", "head"] as const).map((method) =>
  declareRoute({
    method,
    path: "/media/{file}",
    tag: "operations",
    summary: "Hosted media (image results, task inputs) by unguessable id; byte ranges served",
    security: "none",
    errors: "openai",
    answers: {
      "200": { description: "the media bytes", contentType: "application/octet-stream" },
      "206": { description: "one byte range", contentType: "application/octet-stream" },
    },
  })
);

export function mediaRoutes(gateway: Gateway) {
  const app = new Hono<AppEnv>();
  serveRoute(app, media, async (c) => {
    const id = c.req.param("file").replace(/\.[a-z0-9]{1,5}$/i, "");
    const record = await gateway.media.get(id);
    if (!record) {
      throw new GatewayError("media_not_found", 404, "No such media, or it has expired");
    }
    const extension = hostedExtension(record.content_type);
    const headers: Record<string, string> = {
      "content-type": extension ? record.content_type : "application/octet-stream",
      "content-disposition": extension
        ? `inline; filename="${record.id}.${extension}"`
        : `attachment; filename="${record.id}.bin"`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox; default-src 'none'",
      "accept-ranges": "bytes",
      "cache-control": "private, max-age=3600",
      "expires": new Date(record.expires_at).toUTCString(),
    };
    const range = parseRange(c.req.header("range") ?? null, record.size);
    if (range === "unsatisfiable") {
      return new Response(null, {
        status: 416,
        headers: { ...headers, "content-range": `bytes */${record.size}` },
      });
    }
    const status = range ? 206 : 200;
    const length = range ? range.end - range.start + 1 : record.size;
    headers["content-length"] = String(length);
    if (range) headers["content-range"] = `bytes ${range.start}-${range.end}/${record.size}`;
    if (c.req.method === "HEAD") return new Response(null, { status, headers });
    return new Response(gateway.media.stream(record, range ?? undefined), { status, headers });
  });
  return app;
}
