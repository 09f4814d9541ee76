/**
 * A loopback port nothing listens on, for an address that refuses connections. Drawn below the
 * ephemeral range (32768–60999 on Linux) that every test server's `port: 0` comes from, so no
 * server of a test running in parallel can take it between this check and its use (a closed
 * ephemeral port can be, and then answers). Fetch's blocked low ports are avoided too.
 */
export function refusedPort(): number {
  for (let port = 29_000 + Math.floor(Math.random() * 2_000); port < 32_768; port++) {
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch {
      // taken: the next one
    }
  }
  throw new Error("no free port below the ephemeral range");
}
