import { assertEquals } from "../helpers/assert.ts";
import { interfaceOfRequest, readCredential } from "../../core/credentials.ts";

const url = (path: string) => new URL(`http://gw${path}`);

Deno.test("readCredential() reads Bearer on the OpenAI interface", () => {
  const headers = new Headers({ authorization: "Bearer sk-1", "x-api-key": "sk-2" });
  assertEquals(readCredential("openai", headers, url("/v1/chat/completions")), {
    secret: "sk-1",
    form: "bearer",
  });
});

Deno.test("readCredential() reads x-api-key, then Bearer, on the messages interface", () => {
  assertEquals(
    readCredential("anthropic", new Headers({ "x-api-key": "a" }), url("/v1/messages"))?.secret,
    "a",
  );
  assertEquals(
    readCredential("anthropic", new Headers({ authorization: "Bearer b" }), url("/v1/messages"))
      ?.form,
    "bearer",
  );
});

Deno.test("readCredential() reads x-goog-api-key, x-vendor-api-key and ?key= for generate-content", () => {
  const path = "/v1beta/models/m:generateContent";
  assertEquals(
    readCredential("gemini", new Headers({ "x-goog-api-key": "g" }), url(path))?.form,
    "x-goog-api-key",
  );
  assertEquals(
    readCredential("gemini", new Headers({ "x-vendor-api-key": "v" }), url(path))?.secret,
    "v",
  );
  assertEquals(readCredential("gemini", new Headers(), url(`${path}?key=q`))?.form, "query-key");
  assertEquals(readCredential("gemini", new Headers(), url(path)), undefined);
});

Deno.test("interfaceOfRequest() routes /v1/models by credential form and generate-content by suffix", () => {
  assertEquals(
    interfaceOfRequest(
      "/v1/models",
      new Headers({ "anthropic-version": "2023-06-01" }),
      url("/v1/models"),
    ),
    "anthropic",
  );
  assertEquals(
    interfaceOfRequest("/v1/models", new Headers({ "x-goog-api-key": "k" }), url("/v1/models")),
    "gemini",
  );
  assertEquals(
    interfaceOfRequest("/v1/models", new Headers({ authorization: "Bearer k" }), url("/v1/models")),
    "openai",
  );
  assertEquals(
    interfaceOfRequest("/v1/models/m:generateContent", new Headers(), url("/")),
    "gemini",
  );
  assertEquals(interfaceOfRequest("/v1/messages", new Headers(), url("/")), "anthropic");
});
