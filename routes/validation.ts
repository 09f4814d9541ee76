/** Reads and checks JSON bodies, turning every problem into a 400 with the field named. */

import { GatewayError, invalidRequest } from "../core/errors.ts";
import { readLimited } from "../core/util/read_limited.ts";

export { validate } from "../core/util/validate.ts";

/** Parses `text` as JSON or throws 400 `invalid_json`. */
export function parseJson(text: string): unknown {
  if (text.trim() === "") {
    throw invalidRequest(
      "The request body is empty; send a JSON object",
      undefined,
      "invalid_json",
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(
      `The request body is not valid JSON: ${(error as Error).message}`,
      undefined,
      "invalid_json",
    );
  }
}

/** Reads a JSON body with the size limit enforced while reading. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  return parseJson(await readLimitedText(request, maxBytes));
}

/** Reads a body as text, refusing with 413 once it passes `maxBytes`, declared or not. */
export async function readLimitedText(request: Request, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readLimitedBytes(request, maxBytes));
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
  return await readLimited(request.body, { maxBytes, tooLarge });
}
