import { assertEquals, assertThrows } from "../helpers/assert.ts";
import { ConfigError, parseConfig } from "../../core/config_file.ts";

const env = (values: Record<string, string>) => (name: string) => values[name];

const valid = {
  models: { "gpt-x": { kind: "text", price: { input: 1, output: 2 } } },
  channels: [{
    id: "main",
    name: "Main",
    type: "openai",
    base_url: "https://api.example.com/v1/",
    keys: [{ env: "UPSTREAM_KEY" }, "sk-inline"],
    models: ["gpt-x"],
  }],
};

Deno.test("parseConfig() reads secrets from the environment and applies defaults", () => {
  const config = parseConfig(JSON.stringify(valid), env({ UPSTREAM_KEY: "sk-env" }));
  assertEquals(config.channels[0].input.keys, ["sk-env", "sk-inline"]);
  assertEquals(config.channels[0].input.base_url, "https://api.example.com/v1");
  assertEquals(config.channels[0].input.groups, ["default"]);
  assertEquals(config.models["gpt-x"].groups, ["default"]);
});

function messageOf(text: string, values: Record<string, string> = { UPSTREAM_KEY: "x" }) {
  try {
    parseConfig(text, env(values), "gateway.json");
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return "no error";
}

Deno.test("parseConfig() names the field path of a bad value", () => {
  // deno-lint-ignore no-explicit-any
  const bad = structuredClone(valid) as Record<string, any>;
  bad.channels[0].priority = "high";
  assertEquals(
    messageOf(JSON.stringify(bad)).startsWith("gateway.json: channels[0].priority:"),
    true,
  );
  // deno-lint-ignore no-explicit-any
  const badPrice = structuredClone(valid) as Record<string, any>;
  badPrice.models["gpt-x"].price = { per_image: 3 };
  assertEquals(
    messageOf(JSON.stringify(badPrice)).startsWith("gateway.json: models.gpt-x.price:"),
    true,
  );
});

Deno.test("parseConfig() names a missing environment variable", () => {
  assertEquals(
    messageOf(JSON.stringify(valid), {}),
    "gateway.json: channels[0].keys[0]: environment variable UPSTREAM_KEY is not set",
  );
});

Deno.test("parseConfig() refuses invalid JSON and unknown top-level fields", () => {
  assertEquals(messageOf("{").startsWith("gateway.json: not valid JSON"), true);
  assertEquals(messageOf(JSON.stringify({ chanels: [] })).includes("chanels"), true);
  assertThrows(() => parseConfig(JSON.stringify({ server: { max_retries: -1 } }), env({})));
});

Deno.test("parseConfig() accepts the README's example file", async () => {
  const text = await Deno.readTextFile(new URL("../../gateway.example.json", import.meta.url));
  const webhookSecret = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
  const config = parseConfig(
    text,
    (name) => name.endsWith("_WEBHOOK_SECRET") ? webhookSecret : "sk-from-env",
    "gateway.example.json",
  );
  assertEquals(config.channels.map((channel) => channel.id), ["openai-main", "backup"]);
  assertEquals(config.channels[0].input.keys, ["sk-from-env", "sk-from-env"]);
  assertEquals(Object.keys(config.models).length, 3);
  assertEquals(config.webhooks.map((webhook) => [webhook.id, webhook.secret]), [
    ["billing-system", webhookSecret],
  ]);
});

Deno.test("parseConfig() refuses a webhook secret that is not whsec_, naming the field", () => {
  const text = JSON.stringify({
    webhooks: [{ id: "w", url: "https://h.example.com/", secret: { env: "HOOK" } }],
  });
  const refused = (value: string | undefined) => {
    try {
      parseConfig(text, (name) => name === "HOOK" ? value : undefined, "gateway.json");
    } catch (error) {
      return (error as Error).message;
    }
    return "";
  };
  assertEquals(
    refused(undefined),
    "gateway.json: webhooks[0].secret: environment variable HOOK is not set",
  );
  assertEquals(refused("sk-x"), "gateway.json: webhooks[0].secret: must start with 'whsec_'");
});

Deno.test("parseConfig() refuses a base_url holding user:password@, naming it, not the password", () => {
  const withCredentials = structuredClone(valid);
  withCredentials.channels[0].base_url = "https://user:Pa55wordOfTheUpstream@api.example.com/v1";
  const message = messageOf(JSON.stringify(withCredentials));
  assertEquals(message.startsWith("gateway.json: channels[0].base_url:"), true, message);
  assertEquals(message.includes("Pa55word"), false, message);
});
