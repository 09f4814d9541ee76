import { assertEquals, assertThrows } from "../../helpers/assert.ts";
import {
  interfaceName,
  interfaceNames,
  interfaceOfRequest,
  readCredential,
  registerTextInterface,
  textInterfaceOf,
} from "../../../core/formats/interfaces.ts";

const url = (path: string) => new URL(`http://gw${path}`);

Deno.test("readCredential() reads Bearer on the OpenAI interface", () => {
  const headers = new Headers({ authorization: "Bearer sk-1", "x-api-key": "sk-2" });
  assertEquals(readCredential("openai", { headers, url: url("/v1/chat/completions") }), {
    secret: "sk-1",
    form: "bearer",
  });
});

Deno.test("readCredential() reads x-api-key, then Bearer, on the messages interface", () => {
  assertEquals(
    readCredential("anthropic", {
      headers: new Headers({ "x-api-key": "a" }),
      url: url("/v1/messages"),
    })?.secret,
    "a",
  );
  assertEquals(
    readCredential("anthropic", {
      headers: new Headers({ authorization: "Bearer b" }),
      url: url("/v1/messages"),
    })
      ?.form,
    "bearer",
  );
});

Deno.test("readCredential() reads x-goog-api-key, x-vendor-api-key and ?key= for generate-content", () => {
  const path = "/v1beta/models/m:generateContent";
  assertEquals(
    readCredential("gemini", { headers: new Headers({ "x-goog-api-key": "g" }), url: url(path) })
      ?.form,
    "x-goog-api-key",
  );
  assertEquals(
    readCredential("gemini", { headers: new Headers({ "x-vendor-api-key": "v" }), url: url(path) })
      ?.secret,
    "v",
  );
  assertEquals(
    readCredential("gemini", { headers: new Headers(), url: url(`${path}?key=q`) })?.form,
    "query-key",
  );
  assertEquals(readCredential("gemini", { headers: new Headers(), url: url(path) }), undefined);
});

Deno.test("interfaceOfRequest() routes /v1/models by credential form and generate-content by suffix", () => {
  assertEquals(
    interfaceOfRequest("/v1/models", {
      headers: new Headers({ "anthropic-version": "2023-06-01" }),
      url: url("/v1/models"),
    }),
    "anthropic",
  );
  assertEquals(
    interfaceOfRequest("/v1/models", {
      headers: new Headers({ "x-goog-api-key": "k" }),
      url: url("/v1/models"),
    }),
    "gemini",
  );
  assertEquals(
    interfaceOfRequest("/v1/models", {
      headers: new Headers({ authorization: "Bearer k" }),
      url: url("/v1/models"),
    }),
    "openai",
  );
  assertEquals(
    interfaceOfRequest("/v1/models/m:generateContent", { headers: new Headers(), url: url("/") }),
    "gemini",
  );
  assertEquals(
    interfaceOfRequest("/v1/messages", { headers: new Headers(), url: url("/") }),
    "anthropic",
  );
});

Deno.test("interfaceName: the OpenAI family's routes are told apart; others keep their family", () => {
  assertEquals(interfaceName("openai", "/v1/chat/completions"), "openai-chat");
  assertEquals(interfaceName("openai", "/v1/responses"), "openai-responses");
  assertEquals(interfaceName("openai", "/v1/images/edits"), "openai-images");
  assertEquals(interfaceName("openai", "/v1/video/generations/:id"), "video");
  assertEquals(interfaceName("openai", "/v1/rerank"), "rerank");
  assertEquals(interfaceName("openai", "/v1/moderations"), "moderation");
  assertEquals(interfaceNames().includes("rerank"), true);
  assertEquals(interfaceNames().includes("moderation"), true);
  assertEquals(interfaceName("openai", "/v1/models"), "openai");
  assertEquals(interfaceName("openai", "/v1/responsesX"), "openai");
  assertEquals(interfaceName("anthropic", "/v1/messages"), "anthropic");
  assertEquals(interfaceName("gemini", "/v1beta/models/:action"), "gemini");
});

Deno.test("registerTextInterface() adds a row once, and its remover takes it out", () => {
  const chat = textInterfaceOf("openai-chat");
  assertThrows(() => registerTextInterface(chat));
  const remove = registerTextInterface({
    ...chat,
    format: "plain-text",
    name: "plain-text",
    paths: ["/v1/plain"],
  });
  try {
    assertEquals(textInterfaceOf("plain-text").name, "plain-text");
    assertEquals(interfaceName("openai", "/v1/plain"), "plain-text");
    assertEquals(interfaceNames().filter((name) => name === "plain-text"), ["plain-text"]);
  } finally {
    remove();
  }
  assertThrows(() => textInterfaceOf("plain-text"));
  assertEquals(interfaceName("openai", "/v1/plain"), "openai");
});
