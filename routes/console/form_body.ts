/** The body of a console form (URL-encoded), read once and at most 64 KB. */

import type { Context } from "hono";
import { GatewayError } from "../../core/errors.ts";

const MAX_FORM_BYTES = 64 * 1024;

/** The form's fields; a field given twice keeps its last value. Hono caches the parse. */
export async function readForm(c: Context): Promise<Record<string, string>> {
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > MAX_FORM_BYTES) {
    throw new GatewayError("payload_too_large", 413, `A console form is at most 64 KB`);
  }
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded|^multipart\/form-data/i.test(type)) return {};
  let body: Awaited<ReturnType<typeof c.req.parseBody>>;
  try {
    body = await c.req.parseBody();
  } catch {
    throw new GatewayError("invalid_form", 400, "The form's body could not be read");
  }
  return Object.fromEntries(
    Object.entries(body).map(([name, value]) => [name, typeof value === "string" ? value : ""]),
  );
}
