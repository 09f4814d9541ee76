/** Process settings from the environment (design.md §1). */

export interface Settings {
  port: number;
  host: string;
  /** File path, `:memory:` or a KV Connect URL. */
  kvLocation: string;
  adminToken?: string;
  configPath?: string;
  publicUrl?: string;
  ffprobePath: string;
  /** AES key (base64, 32 bytes) that encrypts upstream secrets in KV. */
  secretKey?: string;
  /** Print one JSON line per request on stdout. */
  logRequests: boolean;
}

/** Reads settings from an environment getter (Deno.env.get in production). */
export function readSettings(get: (name: string) => string | undefined): Settings {
  const port = Number(get("PORT") ?? "8080");
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got '${get("PORT")}'`);
  }
  return {
    port,
    host: get("HOST") ?? "0.0.0.0",
    kvLocation: get("GATEWAY_KV") ?? "./data/gateway.kv",
    adminToken: get("GATEWAY_ADMIN_TOKEN") || undefined,
    configPath: get("GATEWAY_CONFIG") || undefined,
    publicUrl: get("GATEWAY_PUBLIC_URL")?.replace(/\/+$/, "") || undefined,
    ffprobePath: get("FFPROBE_PATH") ?? "ffprobe",
    secretKey: get("GATEWAY_SECRET_KEY") || undefined,
    logRequests: get("GATEWAY_LOG_REQUESTS") !== "0",
  };
}

/** Whether the KV location names a remote KV Connect database. */
export function isRemoteKv(location: string): boolean {
  return /^https?:\/\//.test(location);
}
