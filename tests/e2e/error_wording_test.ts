/**
 * Error messages that fit the request: a 402 gives advice for the request's kind (max_tokens only
 * for text), "an image model", and the Gemini interface's 401 names every accepted credential.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { setupImages } from "../helpers/image_setup.ts";
import { setupChat } from "../helpers/text_setup.ts";
import { mediaFixtures } from "../helpers/media_tools.ts";
import { setupVideo } from "../helpers/video_setup.ts";

const fixtures = await mediaFixtures();

async function errorOf(response: Response, status: number) {
  const body = await response.json();
  assertEquals(response.status, status, JSON.stringify(body));
  return body.error as { code: string; message: string; param?: string };
}

Deno.test(
  "402 wording: text says lower max_tokens; images and video say what fits them, never max_tokens",
  serverTest,
  async () => {
    {
      await using s = await setupChat({ balance: 10 });
      const error = await errorOf(
        await postJson(s.gw, "/v1/chat/completions", s.key, {
          model: "gpt-test",
          messages: [{ role: "user", content: "hello" }],
        }),
        402,
      );
      assertEquals(error.code, "insufficient_balance");
      assertOk(error.message.endsWith("add credit or lower max_tokens"), error.message);
    }
    {
      await using s = await setupImages("openai-images", { balance: 50_000 });
      for (const headers of [{}, { "x-gateway-async-task": "true" }] as Record<string, string>[]) {
        const error = await errorOf(
          await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "p", n: 2 }, headers),
          402,
        );
        assertOk(error.message.endsWith("add credit or ask for fewer images"), error.message);
        assertOk(!error.message.includes("max_tokens"), error.message);
      }
    }
    {
      await using s = await setupVideo({ balance: 1_000 });
      const perSecond = await errorOf(
        await s.submit({ model: "vid-2", prompt: "p" }, [
          { field: "video", bytes: fixtures.mp4_3s },
        ]),
        402,
      );
      assertOk(
        perSecond.message.endsWith(
          "add credit or ask for a shorter duration or shorter references",
        ),
        perSecond.message,
      );
      const perTask = await errorOf(await s.submit({ model: "vid-2-cheap", prompt: "p" }), 402);
      assertOk(perTask.message.endsWith("needs up to 500000; add credit"), perTask.message);
    }
  },
);

Deno.test(
  "wrong model kind: 'is an image model' and 'is a video model'",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const chat = await errorOf(
      await postJson(s.gw, "/v1/chat/completions", s.key, {
        model: "gen-image-2",
        messages: [{ role: "user", content: "hi" }],
      }),
      400,
    );
    assertEquals(chat.code, "wrong_model_kind");
    assertOk(chat.message.includes("'gen-image-2' is an image model"), chat.message);
    const video = await errorOf(
      await postJson(s.gw, "/v1/images/generations", s.key, { model: "vid-2", prompt: "p" }),
      400,
    );
    assertOk(video.message.includes("'vid-2' is a video model"), video.message);
  },
);

Deno.test(
  "video reference of the wrong kind: 'must be an image file', 'an audio file'",
  serverTest,
  async () => {
    await using s = await setupVideo();
    const image = await errorOf(
      await s.submit({ model: "vid-2", prompt: "p" }, [
        { field: "image_1", bytes: fixtures.mp4_3s },
      ]),
      400,
    );
    assertOk(image.message.includes("image_1 must be an image file"), image.message);
    const audio = await errorOf(
      await s.submit({ model: "vid-2", prompt: "p" }, [
        { field: "video", bytes: fixtures.mp4_3s },
        { field: "audio", bytes: fixtures.mp4_3s },
      ]),
      400,
    );
    assertOk(audio.message.includes("audio must be an audio file"), audio.message);
  },
);

Deno.test(
  "Gemini interface 401: names x-goog-api-key, x-vendor-api-key, ?key= and Bearer",
  serverTest,
  async () => {
    await using s = await setupChat();
    const response = await postJson(
      s.gw,
      "/v1beta/models/gpt-test:generateContent",
      null,
      { contents: [{ parts: [{ text: "hi" }] }] },
    );
    const body = await response.json();
    assertEquals(response.status, 401);
    const message: string = body.error.message;
    for (const form of ["x-goog-api-key", "x-vendor-api-key", "?key=", "Authorization: Bearer"]) {
      assertOk(message.includes(form), `${form} missing from: ${message}`);
    }
    // Each named form is indeed accepted.
    const forms: Array<[string, Record<string, string>]> = [
      ["", { "x-goog-api-key": s.key }],
      ["", { "x-vendor-api-key": s.key }],
      [`?key=${s.key}`, {}],
      ["", { authorization: `Bearer ${s.key}` }],
    ];
    for (const [query, headers] of forms) {
      const accepted = await postJson(
        s.gw,
        `/v1beta/models/gpt-test:generateContent${query}`,
        null,
        { contents: [{ parts: [{ text: "hi" }] }] },
        headers,
      );
      assertEquals(accepted.status, 200, JSON.stringify(headers) + query);
      await accepted.body?.cancel();
    }
  },
);
