/** The body of a console form (URL-encoded or multipart), read once and at most 64 KB. */

import type { Context } from "hono";
import { GatewayError } from "../../core/errors.ts";
import { readLimitedBytes } from "../validation.ts";
import { readMultipartEntries } from "../multipart_body.ts";

const MAX_FORM_BYTES = 64 * 1024;

type FormEntries = Array<[string, string]>;

/** Each request's form, read once: the CSRF check and the handler both ask for it. */
const forms = new WeakMap<Request, Promise<FormEntries>>();

const tooLarge = () =>
  new GatewayError("payload_too_large", 413, `A console form is at most 64 KB`);

async function parseForm(request: Request): Promise<FormEntries> {
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > MAX_FORM_BYTES) throw tooLarge();
  const type = request.headers.get("content-type") ?? "";
  if (/^multipart\/form-data/i.test(type)) {
    // The shared multipart reader: at most MAX_MULTIPART_PARTS parts, stopped at the first over.
    const entries = await readMultipartEntries(request, {
      maxFileBytes: MAX_FORM_BYTES,
      maxTotalBytes: MAX_FORM_BYTES,
      fileTooLarge: tooLarge,
    }).catch((error) => {
      if (error instanceof GatewayError && error.status === 413) throw tooLarge();
      if (error instanceof GatewayError && error.status === 408) throw error;
      throw new GatewayError("invalid_form", 400, "The form's body could not be read");
    });
    return entries.map(([name, value]) => [name, typeof value === "string" ? value : ""]);
  }
  if (!/^application\/x-www-form-urlencoded/i.test(type)) return [];
  // Read under the cap whether or not a length was declared (a chunked body declares none).
  const bytes = await readLimitedBytes(request, MAX_FORM_BYTES).catch((error) => {
    if (error instanceof GatewayError && error.status === 413) throw tooLarge();
    throw error;
  });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new GatewayError("invalid_form", 400, "The form's body could not be read");
  }
  return [...new URLSearchParams(text)];
}

function formEntries(c: Context): Promise<FormEntries> {
  let form = forms.get(c.req.raw);
  if (!form) {
    form = parseForm(c.req.raw);
    forms.set(c.req.raw, form);
  }
  return form;
}

/** The form's fields; a field given twice keeps its last value. */
export async function readForm(c: Context): Promise<Record<string, string>> {
  return Object.fromEntries(await formEntries(c));
}

/** Every value of the field `name`, in order (a multiple `<select>`, checkboxes). */
export async function readFormValues(c: Context, name: string): Promise<string[]> {
  return (await formEntries(c)).filter(([field]) => field === name).map(([, value]) => value);
}
