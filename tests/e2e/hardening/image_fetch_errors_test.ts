/**
 * An upstream image URL that cannot be fetched (asked for as `b64_json`, or through
 * generateContent) is a 502 that says so in the gateway's words: the host and what kind of
 * failure, never the runtime's error text, which quotes the URL with its query (a signed
 * token, often). Nothing is charged.
 */

import { refusedPort } from "../../helpers/refused_port.ts";
import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { IMAGE_MODEL, setupImages } from "../../helpers/image_setup.ts";

/** A local port nothing listens on. */

Deno.test(
  "an image URL that cannot be fetched: 502 (Gemini: 503) naming the host and the failure, not the URL or the runtime's text",
  serverTest,
  async () => {
    const host = `127.0.0.1:${refusedPort()}`;
    await using s = await setupImages("openai-images", {
      openai: { resultUrl: `http://${host}/img.png?X-Amz-Signature=s3cr3t-token` },
      env: { GATEWAY_MEDIA_FETCH_HOSTS: host },
    });
    const asB64 = await postJson(s.gw, "/v1/images/generations", s.key, {
      prompt: "a kite",
      response_format: "b64_json",
    });
    const gemini = await postJson(
      s.gw,
      `/v1beta/models/${IMAGE_MODEL}:generateContent`,
      null,
      {
        contents: [{ role: "user", parts: [{ text: "a kite" }] }],
        generationConfig: { responseModalities: ["IMAGE"] },
      },
      { "x-goog-api-key": s.key },
    );
    // Google's envelope answers a 502 with the status of its code, 503 UNAVAILABLE.
    for (const [response, status] of [[asB64, 502], [gemini, 503]] as const) {
      const text = await response.text();
      assertEquals(response.status, status, text);
      const message: string = JSON.parse(text).error.message;
      assertOk(
        message.includes(`the image could not be fetched from ${host}`) &&
          message.includes("refused the connection"),
        message,
      );
      for (
        const leak of ["s3cr3t", "X-Amz", "/img.png", "tcp connect", "os error", "client error"]
      ) {
        assertOk(!text.includes(leak), `the answer shows '${leak}': ${text}`);
      }
    }
    await assertNothingCharged(s, 10_000_000);
  },
);
