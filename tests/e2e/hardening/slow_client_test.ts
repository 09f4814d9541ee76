/** A client that stalls while sending its body gets 408 and holds nothing for long. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";

/** Sends `head` and the first bytes of a body over raw TCP, then stalls; returns the answer. */
async function stallAfter(url: string, request: { head: string; sent: string }): Promise<string> {
  const { hostname, port } = new URL(url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  try {
    await connection.write(new TextEncoder().encode(request.head + request.sent));
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(16 * 1024);
    while (true) {
      const read = await connection.read(buffer);
      if (read === null) break;
      chunks.push(buffer.slice(0, read));
      const text = new TextDecoder().decode(
        new Uint8Array(chunks.flatMap((chunk) => [...chunk])),
      );
      if (text.includes("\r\n\r\n") && text.includes("}")) return text;
    }
    return new TextDecoder().decode(new Uint8Array(chunks.flatMap((chunk) => [...chunk])));
  } finally {
    connection.close();
  }
}

Deno.test(
  "slow client: a body that stalls past GATEWAY_CLIENT_IDLE_MS gets 408 in the interface's envelope, nothing charged",
  serverTest,
  async () => {
    const gw = await startTestGateway({ GATEWAY_CLIENT_IDLE_MS: "300" });
    try {
      const { id, key } = await gw.createKey({ balance: 1_000 });
      for (
        const [path, extra, envelope] of [
          ["/v1/chat/completions", `authorization: Bearer ${key}\r\n`, "openai"],
          ["/v1/messages", `x-api-key: ${key}\r\nanthropic-version: 2023-06-01\r\n`, "anthropic"],
        ] as const
      ) {
        const head =
          `POST ${path} HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n` +
          `${extra}content-length: 1000\r\n\r\n`;
        const answer = await stallAfter(gw.url, { head, sent: '{"model":"x","messages":[' });
        assertOk(answer.startsWith("HTTP/1.1 408"), answer.slice(0, 200));
        const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
        if (envelope === "anthropic") assertOk(body.includes('"type":"error"'), body);
        assertOk(body.includes("request_timeout"), body);
      }
      assertEquals(await gw.assertLedgerInvariant(id), 1_000);
    } finally {
      await gw.close();
    }
  },
);
