/**
 * A hostile or broken upstream: it answers every request with one misbehaviour chosen by the
 * test (a redirect to another host, an error that quotes the caller's key, an endless or huge
 * body, a body that is not what it claims…). A second listener, the "elsewhere" host, records
 * whatever reaches it, so a test can prove a redirect was not followed.
 */

export type HostileMode =
  | { kind: "redirect"; status: 301 | 302 | 307 | 308 }
  | { kind: "quote_key"; status: number }
  | { kind: "huge_json"; bytes: number }
  | { kind: "json"; body: unknown; status?: number }
  | { kind: "stream"; events: string[]; thenHang?: boolean };

export interface HostileUpstream extends AsyncDisposable {
  baseUrl: string;
  mode: HostileMode;
  /** Requests the hostile host saw: method, path, headers. */
  seen: Array<{ path: string; headers: Headers }>;
  /** Requests that reached the other host (a followed redirect would land here). */
  elsewhere: Array<{ path: string; headers: Headers }>;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/** A body of `bytes` bytes of a JSON string, made piece by piece (never held whole). */
function hugeJson(bytes: number): ReadableStream<Uint8Array> {
  const piece = encoder.encode("x".repeat(64 * 1024));
  let sent = 0;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(encoder.encode('{"padding":"'));
    },
    pull(controller) {
      if (sent >= bytes) {
        controller.enqueue(encoder.encode('"}'));
        controller.close();
        return;
      }
      controller.enqueue(piece);
      sent += piece.length;
    },
  });
}

export function startHostileUpstream(mode: HostileMode): HostileUpstream {
  const elsewhere: HostileUpstream["elsewhere"] = [];
  const other = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    elsewhere.push({ path: new URL(request.url).pathname, headers: request.headers });
    return Response.json({ error: { message: "you should not be here" } });
  });
  /** Streams still open (a hanging one never ends by itself): closed on `close()`. */
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const state: HostileUpstream = {
    baseUrl: "",
    mode,
    seen: [],
    elsewhere,
    async close() {
      for (const controller of open) {
        try {
          controller.close();
        } catch {
          // already closed or cancelled
        }
      }
      await server.shutdown();
      await other.shutdown();
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const url = new URL(request.url);
    state.seen.push({ path: url.pathname, headers: request.headers });
    const current = state.mode;
    switch (current.kind) {
      case "redirect":
        return new Response(null, {
          status: current.status,
          headers: { location: `http://127.0.0.1:${other.addr.port}${url.pathname}` },
        });
      case "quote_key": {
        const key = request.headers.get("x-api-key") ?? request.headers.get("x-goog-api-key") ??
          request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? "";
        return Response.json({
          error: { message: `Incorrect API key provided: ${key}. Check your key.`, code: key },
        }, { status: current.status });
      }
      case "huge_json":
        return new Response(hugeJson(current.bytes), {
          headers: { "content-type": "application/json" },
        });
      case "json":
        return Response.json(current.body, { status: current.status ?? 200 });
      case "stream": {
        const events = current.events;
        const hang = current.thenHang;
        return new Response(
          new ReadableStream({
            start(controller) {
              for (const event of events) controller.enqueue(encoder.encode(event));
              if (!hang) controller.close();
              else open.add(controller);
            },
            cancel() {},
          }),
          { headers: { "content-type": "text/event-stream" } },
        );
      }
    }
  });
  state.baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  return state;
}
