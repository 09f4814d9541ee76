/**
 * CPU time of a process's threads, grouped by kind (Linux /proc): the main thread (JavaScript,
 * and in Deno the HTTP server's and fetch's I/O too), V8's garbage-collector workers, Deno KV's
 * SQLite thread, tokio's blocking pool.
 */

/** CPU ms (user + system) so far per thread kind of process `pid`. */
export function threadCpuMs(pid: number): Map<string, number> {
  const byKind = new Map<string, number>();
  for (const thread of Deno.readDirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${pid}/task/${thread.name}/stat`);
    } catch {
      continue; // the thread ended
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after the command's ")"; in ticks.
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    const kind = thread.name === String(pid) ? "main thread" : kindOf(comm);
    byKind.set(kind, (byKind.get(kind) ?? 0) + ms);
  }
  return byKind;
}

function kindOf(comm: string): string {
  if (comm.startsWith("V8 DefaultWorke")) return "V8 workers (garbage collector)";
  if (comm.startsWith("sw-")) return "Deno KV (SQLite)";
  if (comm.startsWith("tokio")) return "tokio threads";
  return comm.replace(/\d+$/, "");
}

/** µs per request by thread kind between two readings, largest first, with the total. */
export function cpuPerRequest(
  before: Map<string, number>,
  after: Map<string, number>,
  requests: number,
): { kind: string; us: number }[] {
  const rows = [...after].map(([kind, ms]) => ({
    kind,
    us: ((ms - (before.get(kind) ?? 0)) * 1000) / requests,
  })).filter((row) => row.us >= 0.05).sort((a, b) => b.us - a.us);
  return [...rows, { kind: "whole process", us: rows.reduce((sum, row) => sum + row.us, 0) }];
}

/** CPU ms (user + system) so far of every thread of process `pid`. */
export function processCpuMs(pid: number): number {
  let sum = 0;
  for (const ms of threadCpuMs(pid).values()) sum += ms;
  return sum;
}
