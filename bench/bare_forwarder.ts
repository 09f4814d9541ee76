/** The floor for any Deno gateway: Deno.serve forwarding each request to UPSTREAM_URL with fetch. */

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

if (import.meta.main) {
  const upstream = Deno.env.get("UPSTREAM_URL")?.replace(/\/+$/, "");
  if (!upstream) throw new Error("Set UPSTREAM_URL to the upstream origin");
  // Exit on SIGTERM rather than die of it, so that `--cpu-prof` writes its profile.
  Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
  Deno.serve({
    hostname: Deno.env.get("HOST") ?? "127.0.0.1",
    port: Number(Deno.env.get("PORT") ?? "0"),
    onListen: ({ port }) => console.log(JSON.stringify({ msg: "listening", port })),
  }, (request) => forward(upstream, request));
}
