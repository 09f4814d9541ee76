/**
 * generateContent image edits get the checks of `/v1/images/edits`: an inlineData image that is
 * not what it says (text labelled image/png), a type an image model does not read, a truncated
 * PNG, one of 4 MB or more, or more than 16 of them is a 400 in the Gemini envelope, before
 * anything is held or sent; a real JPEG, WebP or PNG (square or not, opaque or not) is served.
 */

import { GoogleGenAI } from "@google/genai";
import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { IMAGE_MODEL, type ImageChannelType, setupImages } from "../../helpers/image_setup.ts";
import {
  nonSquarePng,
  pngOver4MB,
  squarePngWithTransparency,
  truncatedPng,
} from "../../helpers/png_fixtures.ts";

const fixture = (name: string) =>
  Deno.readFileSync(new URL(`../../fixtures/media/hosted/${name}`, import.meta.url));
const text = (value: string) => new TextEncoder().encode(value);

const inline = (mimeType: string, bytes: Uint8Array) => ({
  inlineData: { mimeType, data: bytes.toBase64() },
});

/** [case, contents, the message's fragment]. */
const REFUSED: Array<[string, unknown[], string]> = [
  [
    "text labelled image/png",
    [{ role: "user", parts: [{ text: "edit" }, inline("image/png", text("hello, not a png"))] }],
    "is labelled image/png but its bytes are text/plain",
  ],
  [
    "HTML labelled image/jpeg",
    [{
      role: "user",
      parts: [{ text: "edit" }, inline("image/jpeg", text("<html><script>x</script></html>"))],
    }],
    "is labelled image/jpeg but its bytes are text/html",
  ],
  [
    "a JPEG labelled image/png",
    [{ role: "user", parts: [{ text: "edit" }, inline("image/png", fixture("image.jpg"))] }],
    "is labelled image/png but its bytes are image/jpeg",
  ],
  [
    "a truncated PNG",
    [{ role: "user", parts: [{ text: "edit" }, inline("image/png", truncatedPng())] }],
    "truncated PNG",
  ],
  [
    "a PDF",
    [{ role: "user", parts: [{ text: "edit" }, inline("application/pdf", text("%PDF-1.4"))] }],
    "takes PNG, JPEG or WebP images",
  ],
  [
    "a GIF",
    [{ role: "user", parts: [{ text: "edit" }, inline("image/gif", fixture("image.gif"))] }],
    "takes PNG, JPEG or WebP images",
  ],
  [
    "a PNG of 4 MB",
    [{ role: "user", parts: [{ text: "edit" }, inline("image/png", pngOver4MB())] }],
    "must be smaller than 4 MB",
  ],
  [
    "17 images",
    [{
      role: "user",
      parts: [
        { text: "edit" },
        ...Array.from({ length: 17 }, () => inline("image/png", squarePngWithTransparency(16))),
      ],
    }],
    "At most 16 inline images",
  ],
  [
    "text as image/png in a model turn",
    [
      { role: "user", parts: [{ text: "draw" }] },
      { role: "model", parts: [inline("image/png", text("not an image"))] },
      { role: "user", parts: [{ text: "now make it night" }] },
    ],
    "contents[1].parts[0].inlineData is labelled image/png but its bytes are text/plain",
  ],
];

for (const type of ["gemini", "openai-images"] as ImageChannelType[]) {
  Deno.test(
    `generateContent inline images on ${type}: what is not the image it says is a 400, nothing held or sent`,
    serverTest,
    async () => {
      await using s = await setupImages(type);
      for (const [name, contents, fragment] of REFUSED) {
        const response = await postJson(
          s.gw,
          `/v1beta/models/${IMAGE_MODEL}:generateContent`,
          null,
          { contents, generationConfig: { responseModalities: ["IMAGE"] } },
          { "x-goog-api-key": s.key },
        );
        const body = await response.json();
        assertEquals(response.status, 400, name);
        assertEquals(body.error.status, "INVALID_ARGUMENT", name);
        assertOk(
          ["INVALID_IMAGE", "IMAGE_TOO_LARGE", "INVALID_REQUEST"].includes(
            body.error.details[0].reason,
          ),
          name,
        );
        assertOk(body.error.message.includes(fragment), `${name}: ${body.error.message}`);
      }
      assertEquals(s.upstreamRequests(), 0);
      await assertNothingCharged(s, 10_000_000, { untouched: true });
    },
  );

  Deno.test(
    `generateContent inline images on ${type}: a real JPEG, WebP and a non-square opaque PNG are edited and billed`,
    serverTest,
    async () => {
      await using s = await setupImages(type);
      const ai = new GoogleGenAI({ apiKey: s.key, httpOptions: { baseUrl: s.gw.url } });
      const images: Array<[string, Uint8Array]> = [
        ["image/jpeg", fixture("image.jpg")],
        ["image/jpg", fixture("image.jpg")],
        ["image/webp", fixture("image.webp")],
        ["image/png", nonSquarePng(64, 32)],
      ];
      for (const [mimeType, bytes] of images) {
        const answer = await ai.models.generateContent({
          model: IMAGE_MODEL,
          contents: [{
            role: "user",
            parts: [{ text: "make it night" }, {
              inlineData: { mimeType, data: bytes.toBase64() },
            }],
          }],
          config: { responseModalities: ["IMAGE"] },
        });
        assertOk(answer.candidates![0].content!.parts!.some((part) => part.inlineData?.data));
      }
      assertEquals(s.upstreamRequests(), images.length);
      assertEquals(await s.gw.assertLedgerInvariant(s.keyId), 10_000_000 - 4 * 40_000);
    },
  );
}
