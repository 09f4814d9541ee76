/**
 * Named crash points for the recovery tests: `GATEWAY_CRASH_AT=video.before_end` makes the
 * process SIGKILL itself when it reaches that point, the way a killed machine would. Unset in
 * production, where each point costs one Set lookup.
 */

const armed = new Set(
  (Deno.env.get("GATEWAY_CRASH_AT") ?? "").split(",").map((name) => name.trim()).filter(Boolean),
);

export function crashPoint(name: string): void {
  if (armed.has(name)) Deno.kill(Deno.pid, "SIGKILL");
}
