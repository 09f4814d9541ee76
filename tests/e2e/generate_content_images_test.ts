import { GoogleGenAI } from "@google/genai";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { IMAGE_MODEL, type ImageChannelType, setupImages } from "../helpers/image_setup.ts";
import { squarePngWithTransparency } from "../helpers/png_fixtures.ts";

for (const type of ["gemini", "openai-images"] as ImageChannelType[]) {
  Deno.test(
    `@google/genai generateContent with an image model on ${type}: inlineData answer`,
    serverTest,
    async () => {
      await using s = await setupImages(type, { gemini: { textPartFirst: true } });
      const ai = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
      const drawn = await ai.models.generateContent({
        model: IMAGE_MODEL,
        contents: "draw a green owl",
        config: { responseModalities: ["TEXT", "IMAGE"] },
      });
      const parts = drawn.candidates![0].content!.parts!;
      const images = parts.filter((part) => part.inlineData?.data);
      assertEquals(images.length, 1);
      assertEquals(images[0].inlineData!.mimeType, "image/png");
      if (type === "gemini") {
        assertOk(parts[0].text, "the upstream's text part comes first and is kept");
        assertEquals(s.gemini!.requests[0].model, "gemini-image-sim");
      }

      const edited = await ai.models.generateContent({
        model: IMAGE_MODEL,
        contents: [{
          role: "user",
          parts: [
            { text: "make it night" },
            {
              inlineData: {
                mimeType: "image/png",
                data: (squarePngWithTransparency(32)).toBase64(),
              },
            },
          ],
        }],
        config: { responseModalities: ["IMAGE"] },
      });
      assertOk(edited.candidates![0].content!.parts!.some((part) => part.inlineData?.data));
      if (type === "openai-images") {
        assertEquals(s.openai!.requests[1].path, "/v1/images/edits");
        assertEquals(s.openai!.requests[1].body.prompt, "make it night");
      }

      let streamedImages = 0;
      for await (
        const chunk of await ai.models.generateContentStream({
          model: IMAGE_MODEL,
          contents: "stream a drawing",
          config: { responseModalities: ["IMAGE"] },
        })
      ) {
        streamedImages += chunk.candidates?.[0]?.content?.parts?.filter((p) => p.inlineData)
          .length ?? 0;
      }
      assertEquals(streamedImages, 1);
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - 3 * 40_000);
    },
  );
}

Deno.test(
  "generateContent for an image model without IMAGE modality: 400 in the Gemini envelope, no charge",
  serverTest,
  async () => {
    await using s = await setupImages("gemini");
    const response = await postJson(
      s.gw,
      `/v1beta/models/${IMAGE_MODEL}:generateContent`,
      null,
      { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
      { "x-goog-api-key": s.key },
    );
    assertEquals(response.status, 400);
    const body = await response.json();
    assertEquals(body.error.status, "INVALID_ARGUMENT");
    assertOk(body.error.message.includes("responseModalities"));
    const empty = await postJson(
      s.gw,
      `/v1/models/${IMAGE_MODEL}:generateContent`,
      null,
      { contents: [] },
      { "x-goog-api-key": s.key },
    );
    assertEquals(empty.status, 400);
    assertEquals(s.upstreamRequests(), 0);
    await assertNothingCharged(s, 10_000_000, { untouched: true });
  },
);
