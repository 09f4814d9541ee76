/**
 * Opens N streaming chat requests at once and keeps them open until killed: the bench reads the
 * server's memory meanwhile. Prints one JSON line once every stream has its first chunk (or failed).
 *
 *   deno run --allow-net bench/open_streams.ts --url=… --key=… --body=… --count=1000
 */

function arg(name: string): string {
  const prefix = `--${name}=`;
  const found = Deno.args.find((value) => value.startsWith(prefix));
  if (found === undefined) throw new Error(`missing ${prefix}`);
  return found.slice(prefix.length);
}

async function openOne(url: string, key: string, body: string): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return false;
    }
    const reader = response.body.getReader();
    const first = await reader.read();
    // Keep reading (and dropping) what follows so the stream stays open and flowing.
    (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done) {
        // drop
      }
    })();
    return !first.done;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const count = Number(arg("count"));
  const results = await Promise.all(
    Array.from({ length: count }, () => openOne(arg("url"), arg("key"), arg("body"))),
  );
  const open = results.filter(Boolean).length;
  console.log(JSON.stringify({ open, failed: count - open }));
  await new Promise(() => {});
}
