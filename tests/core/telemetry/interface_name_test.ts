import { assertEquals } from "../../helpers/assert.ts";
import { interfaceName } from "../../../core/telemetry/interface_name.ts";

Deno.test("interfaceName: the OpenAI family's routes are told apart; others keep their family", () => {
  assertEquals(interfaceName("openai", "/v1/chat/completions"), "openai-chat");
  assertEquals(interfaceName("openai", "/v1/responses"), "openai-responses");
  assertEquals(interfaceName("openai", "/v1/images/edits"), "openai-images");
  assertEquals(interfaceName("openai", "/v1/video/generations/:id"), "video");
  assertEquals(interfaceName("openai", "/v1/models"), "openai");
  assertEquals(interfaceName("openai", "/v1/responsesX"), "openai");
  assertEquals(interfaceName("anthropic", "/v1/messages"), "anthropic");
  assertEquals(interfaceName("gemini", "/v1beta/models/:action"), "gemini");
});
