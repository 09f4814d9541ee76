/**
 * A request the gateway answers before it has read its body (413 for a body declared over the
 * limit, 408 for a body that stalls) is answered with `connection: close`, and the connection is
 * not used again: a request sent after the body on the same socket is never answered, and the
 * socket reaches its end. Raw TCP, as a client would see it.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";
import { tempDir } from "../../helpers/temp_dir.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One HTTP/1.1 answer read off a socket. */
interface RawAnswer {
  status: number;
  headers: Map<string, string[]>;
  body: string;
}

/** Reads answers with a content-length off a socket, then whatever comes until its end. */
class SocketReader {
  #buffer = new Uint8Array(0);
  #ended = false;
  readonly #connection: Deno.Conn;

  constructor(connection: Deno.Conn) {
    this.#connection = connection;
  }

  async #more(): Promise<boolean> {
    if (this.#ended) return false;
    const chunk = new Uint8Array(64 * 1024);
    let read: number | null;
    try {
      read = await this.#connection.read(chunk);
    } catch {
      read = null; // a reset ends the socket too
    }
    if (read === null) {
      this.#ended = true;
      return false;
    }
    const joined = new Uint8Array(this.#buffer.length + read);
    joined.set(this.#buffer);
    joined.set(chunk.subarray(0, read), this.#buffer.length);
    this.#buffer = joined;
    return true;
  }

  /** The next answer; the gateway's error answers carry a content-length. */
  async answer(): Promise<RawAnswer> {
    let headEnd: number;
    while ((headEnd = decoder.decode(this.#buffer).indexOf("\r\n\r\n")) < 0) {
      if (!await this.#more()) throw new Error("the socket ended before an answer");
    }
    const head = decoder.decode(this.#buffer.subarray(0, headEnd)).split("\r\n");
    const headers = new Map<string, string[]>();
    for (const line of head.slice(1)) {
      const at = line.indexOf(":");
      const name = line.slice(0, at).trim().toLowerCase();
      headers.set(name, [...headers.get(name) ?? [], line.slice(at + 1).trim()]);
    }
    const length = Number(headers.get("content-length")?.[0]);
    assertOk(Number.isInteger(length), `an answer without content-length: ${head.join(" | ")}`);
    this.#buffer = this.#buffer.subarray(headEnd + 4); // the head is ASCII: chars are bytes
    while (this.#buffer.length < length && await this.#more()) {
      // read the body
    }
    const body = decoder.decode(this.#buffer.subarray(0, length));
    this.#buffer = this.#buffer.subarray(length);
    return { status: Number(head[0].split(" ")[1]), headers, body };
  }

  /** What comes after the answers read, until the socket's end. */
  async rest(): Promise<string> {
    while (await this.#more()) {
      // read to the end
    }
    return decoder.decode(this.#buffer);
  }
}

/** The answer says `connection: close` (Deno may say it too: every value must). */
function assertClose(answer: RawAnswer, path: string): void {
  const values = answer.headers.get("connection") ?? [];
  assertOk(
    values.length > 0 && values.every((value) => value.toLowerCase() === "close"),
    `${path}: connection: ${values.join(", ") || "(none)"}`,
  );
}

/** Writes `bytes` in pieces; a socket the server closed ends the writing, not the test. */
async function writeAll(connection: Deno.Conn, bytes: Uint8Array): Promise<void> {
  try {
    for (let at = 0; at < bytes.length;) at += await connection.write(bytes.subarray(at));
  } catch {
    // closed by the server: what is asked for
  }
}

/** What the socket gives after the answer, until its end; fails if it stays open. */
async function restUntilClosed(reader: SocketReader, what: string): Promise<string> {
  // A bound so that a connection left open fails the test instead of hanging it.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the connection stayed open`)), 10_000);
  });
  try {
    return await Promise.race([reader.rest(), open]);
  } finally {
    clearTimeout(timer);
  }
}

const NEXT_REQUEST = encoder.encode(
  "GET /healthz HTTP/1.1\r\nhost: gateway\r\nconnection: close\r\n\r\n",
);

/** A connection to `gw` with `head` (and `sent` of the body) written, and its reader. */
async function sendHead(url: string, head: string): Promise<{
  connection: Deno.Conn;
  reader: SocketReader;
}> {
  const { hostname, port } = new URL(url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  await writeAll(connection, encoder.encode(head));
  return { connection, reader: new SocketReader(connection) };
}

const ROUTES = (key: string) =>
  [
    ["/v1/chat/completions", `authorization: Bearer ${key}`],
    ["/v1/messages", `x-api-key: ${key}\r\nanthropic-version: 2023-06-01`],
    ["/v1/images/generations", `authorization: Bearer ${key}`],
  ] as const;

Deno.test(
  "early answers: a body declared over the limit is a 413 with connection: close, and the connection ends",
  serverTest,
  async () => {
    await using dir = await tempDir();
    const limit = 4_096;
    const config = `${dir.path}/gateway.json`;
    await Deno.writeTextFile(config, JSON.stringify({ server: { max_body_bytes: limit } }));
    await using gw = await startTestGateway({ GATEWAY_CONFIG: config });
    const { id, key } = await gw.createKey({ balance: 1_000 });
    for (const [path, credential] of ROUTES(key)) {
      for (const client of ["stalls", "sends it all, then another request"] as const) {
        const what = `${path}, a client that ${client}`;
        const declared = client === "stalls" ? 10_000_000_000 : limit * 16;
        const { connection, reader } = await sendHead(
          gw.url,
          `POST ${path} HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n` +
            `${credential}\r\ncontent-length: ${declared}\r\n\r\n`,
        );
        try {
          const answer = await reader.answer();
          assertEquals(answer.status, 413, `${what}: ${answer.body}`);
          assertClose(answer, what);
          assertOk(answer.body.includes("request_too_large"), answer.body);
          if (client !== "stalls") {
            await writeAll(connection, new Uint8Array(declared).fill(0x20));
            await writeAll(connection, NEXT_REQUEST);
          }
          const after = await restUntilClosed(reader, what);
          assertEquals(after, "", `${what}: answered again on that connection: ${after}`);
        } finally {
          connection.close();
        }
      }
    }
    assertEquals(await gw.assertLedgerInvariant(id), 1_000);
  },
);

Deno.test(
  "early answers: a body that stalls is a 408 with connection: close, and the connection serves nothing more",
  serverTest,
  async () => {
    await using gw = await startTestGateway({ GATEWAY_CLIENT_IDLE_MS: "300" });
    const { id, key } = await gw.createKey({ balance: 1_000 });
    for (const [path, credential] of ROUTES(key)) {
      {
        // A client that stalls for good keeps its connection: Deno 2.9 cannot drop a body read
        // in flight (docs/security.md says so); the answer still says close, and is final.
        const what = `${path}, a client that sends the rest late, then another request`;
        const sent = '{"model":"x","prompt":"a","messages":[';
        const declared = 1_000;
        const { connection, reader } = await sendHead(
          gw.url,
          `POST ${path} HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n` +
            `${credential}\r\ncontent-length: ${declared}\r\n\r\n${sent}`,
        );
        try {
          const answer = await reader.answer();
          assertEquals(answer.status, 408, `${what}: ${answer.body}`);
          assertClose(answer, what);
          assertOk(answer.body.includes("request_timeout"), answer.body);
          await writeAll(connection, new Uint8Array(declared - sent.length).fill(0x20));
          await writeAll(connection, NEXT_REQUEST);
          const after = await restUntilClosed(reader, what);
          assertEquals(after, "", `${what}: answered again on that connection: ${after}`);
        } finally {
          connection.close();
        }
      }
    }
    assertEquals(await gw.assertLedgerInvariant(id), 1_000);
  },
);

Deno.test(
  "early answers: a multipart body over the part cap is a 400 with connection: close, and the connection ends",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id, key } = await gw.createKey({ balance: 1_000 });
    for (const path of ["/v1/images/edits", "/v1/video/generations"]) {
      const boundary = "cap-test";
      const parts = Array.from(
        { length: 40 },
        (_, index) =>
          `--${boundary}\r\ncontent-disposition: form-data; name="f${index}"\r\n\r\nx\r\n`,
      ).join("");
      // The body declares more than it sends: the client then waits, as a slow upload would.
      const { connection, reader } = await sendHead(
        gw.url,
        `POST ${path} HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer ${key}\r\n` +
          `content-type: multipart/form-data; boundary=${boundary}\r\n` +
          `content-length: ${parts.length + 1_000_000}\r\n\r\n${parts}`,
      );
      try {
        const answer = await reader.answer();
        assertEquals(answer.status, 400, `${path}: ${answer.body}`);
        assertClose(answer, path);
        assertOk(answer.body.includes("invalid_multipart"), answer.body);
        const after = await restUntilClosed(reader, path);
        assertEquals(after, "", `${path}: answered again on that connection: ${after}`);
      } finally {
        connection.close();
      }
    }
    assertEquals(await gw.assertLedgerInvariant(id), 1_000);
  },
);
