/**
 * The declarative config file (GATEWAY_CONFIG, JSON): server options, catalog models, channels.
 * Applied at every boot: each model and channel it names is written over the stored one with the
 * same id; records it does not name are left alone. Upstream keys and webhook secrets may come
 * from the environment as `{"env": "NAME"}`. A bad file stops the boot with the field path in the message.
 */

import { z } from "zod";
import { CHANNEL_TYPES, channelInputSchema } from "./channels/channel_schema.ts";
import { modelInputSchema } from "./channels/catalog.ts";
import { webhookCreateSchema } from "./webhooks/endpoint_schema.ts";
import { webhookSecretProblem } from "./webhooks/signing.ts";

const secretSchema = z.union([
  z.string().min(1),
  z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a variable name") }),
]);

const configChannelSchema = z.looseObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "must be 1-100 letters, digits, '_', '.' or '-'"),
  keys: z.array(secretSchema),
  type: z.enum(CHANNEL_TYPES),
});

const configWebhookSchema = z.looseObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, "must be 1-100 letters, digits, '_', '.' or '-'"),
  secret: secretSchema,
});

export const configFileSchema = z.strictObject({
  server: z.strictObject({
    max_body_bytes: z.int().positive().optional(),
    max_retries: z.int().min(0).max(10).optional(),
    request_log_retention_days: z.number().positive().max(3650).optional(),
    audit_retention_days: z.number().positive().max(36500).optional(),
  }).default({}),
  models: z.record(z.string().min(1), modelInputSchema).default({}),
  channels: z.array(configChannelSchema).default([]),
  webhooks: z.array(configWebhookSchema).default([]),
});

export type ConfigFile = z.infer<typeof configFileSchema>;

/** A config problem, naming the field path and the file. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) =>
      typeof part === "number"
        ? `${text}[${part}]`
        : text
        ? `${text}.${String(part)}`
        : String(part),
    "",
  );
}

/** Parses and checks config text; env values are read through `getEnv`. */
export function parseConfig(
  text: string,
  getEnv: (name: string) => string | undefined,
  source = "config",
) {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${source}: not valid JSON: ${(error as Error).message}`);
  }
  const result = configFileSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(`${source}: ${pathText(issue.path) || "(root)"}: ${issue.message}`);
  }
  const config = result.data;
  const channels = config.channels.map((channel, index) => {
    const keys = channel.keys.map((key, keyIndex) => {
      if (typeof key === "string") return key;
      const value = getEnv(key.env);
      if (!value) {
        throw new ConfigError(
          `${source}: channels[${index}].keys[${keyIndex}]: environment variable ${key.env} is not set`,
        );
      }
      return value;
    });
    const { id, ...rest } = channel;
    const parsed = channelInputSchema.safeParse({ ...rest, keys });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(
        `${source}: ${pathText(["channels", index, ...issue.path])}: ${issue.message}`,
      );
    }
    return { id, input: parsed.data };
  });
  const webhooks = config.webhooks.map((webhook, index) => {
    const { id, secret, ...rest } = webhook;
    const value = typeof secret === "string" ? secret : getEnv(secret.env);
    if (!value) {
      throw new ConfigError(
        `${source}: webhooks[${index}].secret: environment variable ${
          (secret as { env: string }).env
        } is not set`,
      );
    }
    const problem = webhookSecretProblem(value);
    if (problem) throw new ConfigError(`${source}: webhooks[${index}].secret: ${problem}`);
    const parsed = webhookCreateSchema.safeParse(rest);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(
        `${source}: ${pathText(["webhooks", index, ...issue.path])}: ${issue.message}`,
      );
    }
    return { id, secret: value, input: parsed.data };
  });
  return { server: config.server, models: config.models, channels, webhooks };
}

export type ParsedConfig = ReturnType<typeof parseConfig>;

/** Reads and parses the file at `path`. */
export async function readConfigFile(
  path: string,
  getEnv: (name: string) => string | undefined,
): Promise<ParsedConfig> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new ConfigError(`Cannot read GATEWAY_CONFIG '${path}': ${(error as Error).message}`);
  }
  return parseConfig(text, getEnv, path);
}
