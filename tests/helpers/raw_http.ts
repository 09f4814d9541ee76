/**
 * One HTTP/1.1 request written byte for byte over TCP, for what fetch refuses to send (control
 * characters and raw UTF-8 in header values). The request asks `connection: close`, and the
 * answer is read to the socket's end.
 */

export interface RawAnswer {
  /** 0 when the socket ended without an answer. */
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Map<string, string>;
  body: Uint8Array;
}

const encoder = new TextEncoder();

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Sends `method path` with `headers` (each value as its UTF-8 bytes) and `body`. */
export async function rawRequest(
  url: string,
  request: { method: string; path: string; headers: Array<[string, string]>; body?: Uint8Array },
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const body = request.body ?? new Uint8Array(0);
  const head = [
    `${request.method} ${request.path} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    "connection: close",
    ...(request.body ? [`content-length: ${body.length}`] : []),
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
  ].join("\r\n") + "\r\n\r\n";
  const connection = await Deno.connect({ hostname, port: Number(port) });
  const chunks: Uint8Array[] = [];
  try {
    const bytes = concat([encoder.encode(head), body]);
    for (let at = 0; at < bytes.length;) at += await connection.write(bytes.subarray(at));
    const buffer = new Uint8Array(64 * 1024);
    while (true) {
      const read = await connection.read(buffer).catch(() => null);
      if (read === null) break;
      chunks.push(buffer.slice(0, read));
    }
  } finally {
    connection.close();
  }
  return parseAnswer(concat(chunks));
}

function parseAnswer(bytes: Uint8Array): RawAnswer {
  const text = new TextDecoder("latin1").decode(bytes);
  const headEnd = text.indexOf("\r\n\r\n");
  if (!text.startsWith("HTTP/1.1 ") || headEnd < 0) {
    return { status: 0, headers: new Map(), body: bytes };
  }
  const lines = text.slice(0, headEnd).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const at = line.indexOf(":");
    headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  let body = bytes.subarray(headEnd + 4);
  if (headers.get("transfer-encoding")?.toLowerCase() === "chunked") body = unchunk(body);
  return { status: Number(lines[0].split(" ")[1]), headers, body };
}

function unchunk(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  const text = new TextDecoder("latin1").decode(bytes);
  let at = 0;
  while (at < text.length) {
    const lineEnd = text.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return concat(parts);
}
