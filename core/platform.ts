/**
 * Where the process runs, read once at boot: on Deno Deploy (or, the same to the gateway, in a
 * process that may not write files) KV comes from the platform, secrets from the environment,
 * sweeps from Deno.cron, and durations are read in process; elsewhere the gateway keeps its KV
 * file and may run ffprobe. See docs/deploy.md.
 */

export interface Platform {
  /**
   * Deno Deploy, or a process without file writes: `Deno.openKv()` with no path when GATEWAY_KV
   * is unset, GATEWAY_SECRET_KEY and GATEWAY_ADMIN_TOKEN required, no KV queues, crons.
   */
  serverless: boolean;
  /** Why `serverless` is what it is, for the boot line. */
  reason: string;
  /** Temp files may be written (uploads on disk, ffprobe's inputs that need seeking). */
  tempFiles: boolean;
  /** The ffprobe binary may be started (whether it exists is found on first use). */
  runFfprobe: boolean;
}

type PermissionQuery = (descriptor: Deno.PermissionDescriptor) => Deno.PermissionStatus;

/** Reads the platform from the environment and the permissions this process was given. */
export function detectPlatform(
  env: (name: string) => string | undefined,
  options: { ffprobePath: string; query?: PermissionQuery },
): Platform {
  const query = options.query ?? ((descriptor) => Deno.permissions.querySync(descriptor));
  const granted = (descriptor: Deno.PermissionDescriptor) => {
    try {
      return query(descriptor).state === "granted";
    } catch {
      return false;
    }
  };
  const tempDir = env("TMPDIR") || "/tmp";
  const tempFiles = granted({ name: "write", path: tempDir });
  const runFfprobe = granted({ name: "run", command: options.ffprobePath });
  const deploymentId = env("DENO_DEPLOYMENT_ID") || (env("DENO_DEPLOY") === "true" ? "?" : "");
  if (deploymentId) {
    return {
      serverless: true,
      reason: `on Deno Deploy (DENO_DEPLOYMENT_ID ${deploymentId})`,
      // Deploy's disk and tools are not the gateway's to rely on: no ffprobe there.
      tempFiles,
      runFfprobe: false,
    };
  }
  if (!tempFiles) {
    return {
      serverless: true,
      reason: `no write permission for ${tempDir}`,
      tempFiles,
      runFfprobe,
    };
  }
  return {
    serverless: false,
    reason: "a long-lived process with file writes",
    tempFiles,
    runFfprobe,
  };
}

/** A long-lived process with every permission: what the tests' in-process gateways are. */
export const LONG_LIVED: Platform = {
  serverless: false,
  reason: "a long-lived process with file writes",
  tempFiles: true,
  runFfprobe: true,
};
