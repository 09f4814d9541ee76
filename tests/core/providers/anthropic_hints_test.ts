import { assertEquals } from "../../helpers/assert.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import { PROVIDERS } from "../../../core/providers/provider_table.ts";
import type { ClientHints } from "../../../core/providers/client_hints.ts";

const hints: ClientHints = {
  anthropicVersion: "2026-10-21",
  anthropicBetas: ["claude-code-20250219", "oauth-2025-04-20", "context-management-2025-06-27"],
  betaQuery: "true",
};

function channelOf(type: Channel["type"], extra: Partial<Channel> = {}): Channel {
  return { type, base_url: "https://upstream.example", keys: ["sk"], ...extra } as Channel;
}

async function sent(channel: Channel, input: ClientHints) {
  const target = { channel, apiKey: "sk", model: "m" };
  const request = await PROVIDERS[channel.type].text!.request(target, {
    stream: false,
    body: "{}",
    hints: input,
  });
  const headers = new Headers(request.init.headers);
  return {
    url: request.url,
    version: headers.get("anthropic-version"),
    betas: headers.get("anthropic-beta"),
  };
}

Deno.test("anthropic provider: the client's version, betas and ?beta=true go upstream", async () => {
  assertEquals(await sent(channelOf("anthropic"), hints), {
    url: "https://upstream.example/v1/messages?beta=true",
    version: "2026-10-21",
    betas: "claude-code-20250219,oauth-2025-04-20,context-management-2025-06-27",
  });
});

Deno.test("anthropic provider: without client hints, the channel's version, else 2023-06-01", async () => {
  const none: ClientHints = { anthropicBetas: [] };
  assertEquals(await sent(channelOf("anthropic"), none), {
    url: "https://upstream.example/v1/messages",
    version: "2023-06-01",
    betas: null,
  });
  assertEquals(
    (await sent(channelOf("anthropic", { anthropic_version: "2025-05-05" }), none)).version,
    "2025-05-05",
  );
  assertEquals(
    (await sent(channelOf("anthropic", { anthropic_version: "2025-05-05" }), hints)).version,
    "2026-10-21",
  );
});

Deno.test("anthropic provider: the channel's beta rules filter, and removedHints names the rest", async () => {
  const channel = channelOf("anthropic", {
    anthropic_betas: {
      allow: ["claude-code-*", "context-management-2025-06-27"],
      deny: ["context-management-*"],
    },
  });
  assertEquals((await sent(channel, hints)).betas, "claude-code-20250219");
  assertEquals(PROVIDERS.anthropic.text!.removedHints!(channel, hints), [
    "anthropic-beta=oauth-2025-04-20",
    "anthropic-beta=context-management-2025-06-27",
  ]);
  const counted = await PROVIDERS.anthropic.text!.countTokens!.request(
    { channel, apiKey: "sk", model: "m" },
    { request: {}, hints },
  );
  assertEquals(counted.url, "https://upstream.example/v1/messages/count_tokens?beta=true");
  assertEquals(new Headers(counted.init.headers).get("anthropic-beta"), "claude-code-20250219");
});

for (const type of ["openai", "openai-responses", "gemini"] as const) {
  Deno.test(`${type} provider: anthropic hints never reach the upstream`, async () => {
    const { url, version, betas } = await sent(channelOf(type), hints);
    assertEquals([version, betas, url.includes("beta=")], [null, null, false]);
    assertEquals(PROVIDERS[type].text!.removedHints?.(channelOf(type), hints) ?? [], []);
  });
}
