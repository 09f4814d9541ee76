/**
 * A webhook receiver on 127.0.0.1 (or where told, over TLS if told), as a client would run one: it records every request with
 * its headers and body, and answers as told (`mode`): 200, a status, or hang until closed.
 */

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  headers: Record<string, string>;
  body: string;
}

export type ReceiverMode =
  | { kind: "ok" }
  | { kind: "status"; status: number }
  /** Never answers (until the receiver closes). */
  | { kind: "hang" };

export interface WebhookReceiver extends AsyncDisposable {
  url: string;
  received: ReceivedWebhook[];
  mode: ReceiverMode;
  /** Waits until `count` requests have arrived (at most `timeoutMs`); returns them all. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** Where the receiver listens: `hostname` (default 127.0.0.1), and over TLS with `cert`/`key`. */
export interface ReceiverListen {
  hostname?: string;
  cert?: string;
  key?: string;
}

export function startWebhookReceiver(
  mode: ReceiverMode = { kind: "ok" },
  listen: ReceiverListen = {},
): WebhookReceiver {
  const received: ReceivedWebhook[] = [];
  const closing = new AbortController();
  const receiver = {
    url: "",
    received,
    mode,
  } as WebhookReceiver;
  const server = Deno.serve(
    {
      hostname: listen.hostname ?? "127.0.0.1",
      port: 0,
      onListen: () => {},
      signal: closing.signal,
      ...(listen.cert && listen.key ? { cert: listen.cert, key: listen.key } : {}),
    },
    async (request) => {
      const body = await request.text();
      received.push({
        id: request.headers.get("webhook-id") ?? "",
        timestamp: request.headers.get("webhook-timestamp") ?? "",
        signature: request.headers.get("webhook-signature") ?? "",
        headers: Object.fromEntries(request.headers),
        body,
      });
      const current = receiver.mode;
      if (current.kind === "hang") {
        await new Promise((resolve) => closing.signal.addEventListener("abort", resolve));
        return new Response("closed", { status: 503 });
      }
      if (current.kind === "status") return new Response("no", { status: current.status });
      return new Response("ok");
    },
  );
  receiver.url = `${listen.cert ? "https" : "http"}://127.0.0.1:${server.addr.port}/hook`;
  receiver.waitFor = async (count, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (received.length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (received.length < count) {
      throw new Error(`expected ${count} webhook requests, got ${received.length}`);
    }
    return received;
  };
  receiver.close = async () => {
    closing.abort();
    await server.finished;
  };
  receiver[Symbol.asyncDispose] = receiver.close;
  return receiver;
}
