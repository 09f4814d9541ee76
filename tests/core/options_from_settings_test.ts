/** The gateway's options as the boot maps them from the settings, the config file and the platform. */

import { assertEquals } from "../helpers/assert.ts";
import { readSettings } from "../../core/settings.ts";
import { DEFAULT_OPTIONS } from "../../core/gateway.ts";
import { optionsFromSettings, WEBHOOK_MIN_POLL_MS } from "../../core/options_from_settings.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];
const localPlatform = { runFfprobe: true, tempFiles: true };

Deno.test("optionsFromSettings: an empty environment and no config file give the defaults", () => {
  const options = optionsFromSettings(readSettings(env({})), {
    platform: localPlatform,
    taskQueue: true,
  });
  assertEquals(options, {
    ...DEFAULT_OPTIONS,
    requestLogRetentionMs: undefined,
    auditRetentionMs: undefined,
    publicUrl: undefined,
    taskQueue: true,
    log: undefined,
    configFile: undefined,
    metricsTokenHash: undefined,
    webhooks: { ...DEFAULT_OPTIONS.webhooks, resolve: undefined },
    members: { ...DEFAULT_OPTIONS.members, smtpUrl: undefined, mailFrom: undefined },
  });
});

Deno.test("optionsFromSettings: the members' mail and sign-up settings", () => {
  const options = optionsFromSettings(
    readSettings(env({
      GATEWAY_SMTP_URL: "smtp://u:p@mail.example.com:2525",
      GATEWAY_MAIL_FROM: "Gateway <noreply@example.com>",
      GATEWAY_SIGNUP: "1",
      GATEWAY_SIGNUP_GROUP: "trial",
    })),
    { platform: localPlatform, taskQueue: true },
  );
  assertEquals(options.members, {
    smtpUrl: "smtp://u:p@mail.example.com:2525",
    mailFrom: "Gateway <noreply@example.com>",
    signup: true,
    signupGroup: "trial",
  });
  let refused = "";
  try {
    readSettings(env({ GATEWAY_SMTP_URL: "http://user:secret@mail.example.com" }));
  } catch (error) {
    refused = String(error);
  }
  assertEquals(refused.includes("GATEWAY_SMTP_URL must be"), true);
  assertEquals(refused.includes("secret"), false, "the password is not echoed");
});

Deno.test("optionsFromSettings: each setting lands in its option", () => {
  const settings = readSettings(env({
    GATEWAY_PUBLIC_URL: "https://gw.example.com/",
    GATEWAY_CONFIG: "gateway.json",
    GATEWAY_LOG_REQUESTS: "0",
    GATEWAY_MEDIA_TTL_HOURS: "2",
    GATEWAY_MEDIA_FETCH_HOSTS: "cdn.example.com, img.example.com",
    FFPROBE_PATH: "/opt/ffprobe",
    GATEWAY_CLIENT_IDLE_MS: "5000",
    GATEWAY_INSTANCE_LEASE_MS: "9000",
    GATEWAY_UPSTREAM_TEXT_MAX_MB: "1",
    GATEWAY_UPSTREAM_MEDIA_MAX_MB: "2",
    GATEWAY_UPSTREAM_EVENT_MAX_MB: "3",
    GATEWAY_VIDEO_POLL_MIN_MS: "100",
    GATEWAY_VIDEO_POLL_MAX_MS: "200",
    GATEWAY_VIDEO_TIMEOUT_MINUTES: "3",
    GATEWAY_WEBHOOK_ALLOW_PRIVATE: "1",
    GATEWAY_WEBHOOK_TIMEOUT_MS: "700",
    GATEWAY_WEBHOOK_RETRY_BASE_MS: "800",
    GATEWAY_WEBHOOK_MAX_ATTEMPTS: "4",
    GATEWAY_TASK_POLL_MS: "2000",
  }));
  const log = () => {};
  const resolve = () => Promise.resolve([]);
  const options = optionsFromSettings(settings, {
    platform: { runFfprobe: false, tempFiles: false },
    taskQueue: false,
    log,
    metricsTokenHash: "ab12",
    webhookResolve: resolve,
  });
  assertEquals(options.publicUrl, "https://gw.example.com");
  assertEquals(options.configFile, "gateway.json");
  assertEquals(options.logRequestsToStdout, false);
  assertEquals(options.mediaTtlMs, 2 * 3_600_000);
  assertEquals(options.mediaFetchHosts, ["cdn.example.com", "img.example.com"]);
  assertEquals([options.ffprobePath, options.runFfprobe, options.tempFiles], [
    "/opt/ffprobe",
    false,
    false,
  ]);
  assertEquals([options.clientIdleMs, options.instanceLeaseMs], [5000, 9000]);
  assertEquals(options.upstreamMaxBytes, {
    text: 1024 * 1024,
    media: 2 * 1024 * 1024,
    event: 3 * 1024 * 1024,
  });
  assertEquals(options.video, { pollMinMs: 100, pollMaxMs: 200, timeoutMs: 180_000 });
  assertEquals(options.webhooks, {
    allowPrivate: true,
    timeoutMs: 700,
    retryBaseMs: 800,
    maxAttempts: 4,
    pollMs: 2000,
    resolve,
  });
  assertEquals([options.taskQueue, options.metricsTokenHash], [false, "ab12"]);
  assertEquals(options.log, log);
});

Deno.test("optionsFromSettings: the config file's server block, retention in days", () => {
  const options = optionsFromSettings(readSettings(env({})), {
    server: {
      max_body_bytes: 1_000,
      max_retries: 0,
      request_log_retention_days: 1.5,
      audit_retention_days: 30,
    },
    platform: localPlatform,
    taskQueue: true,
  });
  assertEquals(options.maxBodyBytes, 1_000);
  assertEquals(options.maxRetries, 0);
  assertEquals(options.requestLogRetentionMs, 1.5 * 86_400_000);
  assertEquals(options.auditRetentionMs, 30 * 86_400_000);
});

Deno.test("optionsFromSettings: the webhook worker polls no faster than its floor", () => {
  const fast = readSettings(env({ GATEWAY_TASK_POLL_MS: "10" }));
  const options = optionsFromSettings(fast, { platform: localPlatform, taskQueue: true });
  assertEquals(options.webhooks.pollMs, WEBHOOK_MIN_POLL_MS);
});

Deno.test("optionsFromSettings: the proxies whose x-forwarded-for is believed", () => {
  const options = (vars: Record<string, string>) => {
    const { trustProxyHops, trustedProxies } = optionsFromSettings(readSettings(env(vars)), {
      platform: localPlatform,
      taskQueue: true,
    });
    return { trustProxyHops, trustedProxies };
  };
  assertEquals(options({}), { trustProxyHops: 0, trustedProxies: [] });
  assertEquals(options({ GATEWAY_TRUST_PROXY: "2" }), { trustProxyHops: 2, trustedProxies: [] });
  assertEquals(options({ GATEWAY_TRUSTED_PROXIES: "10.0.0.0/8, fd00::/8" }), {
    trustProxyHops: 0,
    trustedProxies: ["10.0.0.0/8", "fd00::/8"],
  });
  const refusal = (vars: Record<string, string>) => {
    try {
      readSettings(env(vars));
      return "";
    } catch (error) {
      return (error as Error).message;
    }
  };
  assertEquals(
    refusal({ GATEWAY_TRUSTED_PROXIES: "10.0.0.0/8,proxy.local" }),
    "GATEWAY_TRUSTED_PROXIES: 'proxy.local' is not a CIDR range: not an IPv4 or IPv6 address",
  );
  assertEquals(
    refusal({ GATEWAY_TRUSTED_PROXIES: "10.0.0.0/8", GATEWAY_TRUST_PROXY: "1" }).startsWith(
      "Set GATEWAY_TRUSTED_PROXIES or GATEWAY_TRUST_PROXY, not both",
    ),
    true,
  );
});
