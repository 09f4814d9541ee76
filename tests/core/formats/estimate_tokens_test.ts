import { assertEquals } from "../../helpers/assert.ts";
import {
  estimateOutputTokens,
  estimatePromptTokens,
  promptTokensUpperBound,
} from "../../../core/formats/openai_chat/estimate_tokens.ts";
import { simulatedUsage } from "../../upstream/openai_chat.ts";

const request = {
  model: "m",
  messages: [
    { role: "system" as const, content: "You are terse." },
    {
      role: "user" as const,
      content: [{ type: "text", text: "héllo" }, {
        type: "image_url",
        image_url: { url: "data:..." },
      }],
    },
  ],
};

Deno.test("promptTokensUpperBound() counts UTF-8 bytes, a fixed cost per image and per message", () => {
  // 14 + 6 bytes of text, one image, two messages
  assertEquals(promptTokensUpperBound(request), 14 + 6 + 1_600 + 16);
});

Deno.test("promptTokensUpperBound() is not below what an upstream reports for the same text", () => {
  const messages = [{
    role: "user" as const,
    content: "a longer prompt, with words and punctuation!",
  }];
  const upstream = simulatedUsage(messages, 0).prompt_tokens;
  assertEquals(promptTokensUpperBound({ model: "m", messages }) >= upstream, true);
});

Deno.test("estimatePromptTokens() and estimateOutputTokens() use four characters per token", () => {
  assertEquals(
    estimatePromptTokens({ model: "m", messages: [{ role: "user", content: "12345678" }] }),
    2 + 4,
  );
  assertEquals(estimateOutputTokens(9), 3);
});
