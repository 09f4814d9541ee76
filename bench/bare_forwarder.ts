/**
 * The floor for any Deno gateway: Deno.serve forwarding each request to UPSTREAM_URL with fetch.
 * With FORWARDER_BODY=js-pump it copies each answer's body through a JavaScript ReadableStream
 * instead of handing the upstream's body back: the least any server that reads a stream (to bill
 * it, to convert it) can do, and so the floor for the gateway's memory per open stream.
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

if (import.meta.main) {
  const upstream = Deno.env.get("UPSTREAM_URL")?.replace(/\/+$/, "");
  if (!upstream) throw new Error("Set UPSTREAM_URL to the upstream origin");
  // Exit on SIGTERM rather than die of it, so that `--cpu-prof` writes its profile.
  Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
  Deno.serve(
    {
      hostname: Deno.env.get("HOST") ?? "127.0.0.1",
      port: Number(Deno.env.get("PORT") ?? "0"),
      onListen: ({ port }) => console.log(JSON.stringify({ msg: "listening", port })),
    },
    Deno.env.get("FORWARDER_BODY") === "js-pump"
      ? (request) => forwardThroughJsStream(upstream, request)
      : (request) => forward(upstream, request),
  );
}
