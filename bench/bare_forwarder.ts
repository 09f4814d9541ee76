/**
 * The floor for any Deno gateway: Deno.serve forwarding each request to UPSTREAM_URL with fetch.
 * With FORWARDER_BODY=js-pump it copies each answer's body through a JavaScript ReadableStream
 * instead of handing the upstream's body back: the least any server that reads a stream (to bill
 * it, to convert it) can do, and so the floor for the gateway's memory per open stream. With
 * FORWARDER_BODY=read-whole it reads each answer whole into the isolate and writes it back: the
 * least any server that reads a whole answer (to bill it) pays for its bytes (the embeddings row).
 */

/** Forwards `request` (method, headers minus host, body) to `upstream` and returns its answer. */
export async function forward(upstream: string, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  headers.delete("host");
  try {
    return await fetch(upstream + url.pathname + url.search, {
      method: request.method,
      headers,
      body: request.body ? await request.arrayBuffer() : undefined,
    });
  } catch (error) {
    return Response.json({ error: { message: String(error) } }, { status: 502 });
  }
}

/** `forward`, with the answer's body copied through a JavaScript stream in 4 KiB reads. */
export async function forwardThroughJsStream(
  upstream: string,
  request: Request,
): Promise<Response> {
  const response = await forward(upstream, request);
  if (!response.body) return response;
  const reader = response.body.getReader({ mode: "byob" });
  let buffer = new Uint8Array(4096);
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await reader.read(buffer);
        if (done) return controller.close();
        controller.enqueue(value.slice());
        buffer = new Uint8Array(value.buffer, 0, value.buffer.byteLength);
      },
      cancel: (reason) => reader.cancel(reason),
    }, { highWaterMark: 0 }),
    { status: response.status, headers: response.headers },
  );
}

/** `forward`, with the answer's body read whole into the isolate, then written back. */
export async function forwardReadWhole(upstream: string, request: Request): Promise<Response> {
  const response = await forward(upstream, request);
  const body = await response.bytes();
  return new Response(body, { status: response.status, headers: response.headers });
}

const HANDLERS = { "js-pump": forwardThroughJsStream, "read-whole": forwardReadWhole };

if (import.meta.main) {
  const upstream = Deno.env.get("UPSTREAM_URL")?.replace(/\/+$/, "");
  if (!upstream) throw new Error("Set UPSTREAM_URL to the upstream origin");
  // Exit on SIGTERM rather than die of it, so that `--cpu-prof` writes its profile.
  Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
  const mode = Deno.env.get("FORWARDER_BODY") as keyof typeof HANDLERS | undefined;
  const handler = (mode && HANDLERS[mode]) ?? forward;
  Deno.serve(
    {
      hostname: Deno.env.get("HOST") ?? "127.0.0.1",
      port: Number(Deno.env.get("PORT") ?? "0"),
      onListen: ({ port }) => console.log(JSON.stringify({ msg: "listening", port })),
    },
    (request) => handler(upstream, request),
  );
}
