/** Reads and checks JSON bodies, turning every problem into a 400 with the field named. */

import { GatewayError, invalidRequest } from "../core/errors.ts";
import { readLimited } from "../core/util/read_limited.ts";
import { bodyIdleError, bodyIdleMs } from "./body_idle.ts";

export { validate } from "../core/util/validate.ts";

/**
 * How deep a JSON body may nest. Real requests stay far below (a tool's JSON schema is the
 * deepest part, a few dozen levels); the converters walk bodies recursively, so a body nested a
 * million levels deep would otherwise exhaust the stack.
 */
export const MAX_JSON_DEPTH = 256;

interface Visit {
  value: unknown;
  depth: number;
  parent?: Visit;
  key?: string;
}

function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) keys.push(at.key);
  const path = keys.reverse().join(".");
  return path.length > 100 ? `${path.slice(0, 100)}…` : path;
}

/**
 * Checks a parsed body without recursion: no deeper than MAX_JSON_DEPTH, and no number that
 * JSON.parse turned into ±Infinity (`1e400`). Throws a 400 naming where.
 */
function checkJsonShape(root: unknown): void {
  const stack: Visit[] = [{ value: root, depth: 0 }];
  while (stack.length) {
    const visit = stack.pop()!;
    const { value, depth } = visit;
    if (typeof value === "number" && !Number.isFinite(value)) {
      const path = pathOf(visit);
      throw invalidRequest(
        `${path ? `Invalid value for '${path}'` : "Invalid request"}: a number too large to ` +
          `represent (it reads as ${value})`,
        path || undefined,
      );
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw invalidRequest(
        `The request body nests deeper than ${MAX_JSON_DEPTH} levels (at '${pathOf(visit)}')`,
        undefined,
        "invalid_json",
      );
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) =>
        stack.push({ value: item, depth: depth + 1, parent: visit, key: String(index) })
      );
    } else {
      for (const key in value) {
        stack.push({
          value: (value as Record<string, unknown>)[key],
          depth: depth + 1,
          parent: visit,
          key,
        });
      }
    }
  }
}

/**
 * Parses `text` as JSON or throws 400 `invalid_json`; a body nested too deep is `invalid_json`
 * too, and a number out of range (`1e400`) is 400 `invalid_request` naming the field.
 */
export function parseJson(text: string): unknown {
  if (text.trim() === "") {
    throw invalidRequest(
      "The request body is empty; send a JSON object",
      undefined,
      "invalid_json",
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidRequest(
      `The request body is not valid JSON: ${(error as Error).message}`,
      undefined,
      "invalid_json",
    );
  }
  checkJsonShape(parsed);
  return parsed;
}

/** What a JSON value is, in words, for messages. */
function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Reads a JSON body with the size limit enforced while reading: UTF-8 (invalid bytes are a 400,
 * not replaced), and a JSON object, as every JSON body the gateway takes is.
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const body = parseJson(await readLimitedText(request, maxBytes));
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidRequest(`The request body must be a JSON object, not ${jsonKind(body)}`);
  }
  return body as Record<string, unknown>;
}

/** Decodes whole bodies (never with `stream`), so one decoder serves every request. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a body as UTF-8 text, refusing with 413 once it passes `maxBytes`, declared or not, and
 * with 400 `invalid_json` when it is not valid UTF-8 (JSON is UTF-8: RFC 8259 §8.1).
 */
export async function readLimitedText(request: Request, maxBytes: number): Promise<string> {
  const bytes = await readLimitedBytes(request, maxBytes);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw invalidRequest(
      `The request body is not valid UTF-8 (first bad byte at offset ${
        firstInvalidUtf8(bytes)
      }); send JSON as UTF-8`,
      undefined,
      "invalid_json",
    );
  }
}

/** The offset of the first byte that breaks UTF-8 in `bytes` (for the message only). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let at = 0;
  while (at < bytes.length) {
    const lead = bytes[at];
    const length = lead < 0x80
      ? 1
      : lead >= 0xc2 && lead <= 0xdf
      ? 2
      : lead >= 0xe0 && lead <= 0xef
      ? 3
      : lead >= 0xf0 && lead <= 0xf4
      ? 4
      : 0;
    if (length === 0 || at + length > bytes.length) return at;
    try {
      decoder.decode(bytes.subarray(at, at + length));
    } catch {
      return at;
    }
    at += length;
  }
  return at;
}

/** Reads a body, refusing with 413 once it passes `maxBytes`, declared or not. */
export async function readLimitedBytes(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    new GatewayError(
      "request_too_large",
      413,
      `The request body is larger than the limit of ${maxBytes} bytes`,
    );
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const idleMs = bodyIdleMs(request);
  return await readLimited(request.body, {
    maxBytes,
    tooLarge,
    keepStream: true,
    ...(idleMs !== undefined && { idleMs, onIdle: () => bodyIdleError(idleMs) }),
  });
}
