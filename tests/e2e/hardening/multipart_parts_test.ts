/**
 * Multipart parts are capped everywhere (routes/multipart_body.ts): 33 parts to an image edit, a
 * video request or a console form are a 400 naming the limit of 32, nothing held or sent, even
 * from a key with no balance; a body of a million parts is not read to its end.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { setupImages } from "../../helpers/image_setup.ts";
import { squarePngWithTransparency } from "../../helpers/png_fixtures.ts";

/** An edit that would be served but for its part count: an image, a prompt and `extra` fields. */
function editWithParts(extra: number): FormData {
  const form = new FormData();
  form.append("prompt", "add a kite");
  form.append(
    "image",
    new Blob([squarePngWithTransparency(32) as Uint8Array<ArrayBuffer>]),
    "a.png",
  );
  for (let i = 0; i < extra; i++) form.append(`x_extra_${i}`, "1");
  return form;
}

Deno.test(
  "image edits: 33 parts are a 400 naming the limit of 32, nothing held or sent; 32 are served",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const { key: broke } = await s.gw.createKey({ balance: 0 });
    for (const key of [s.key, broke]) {
      const response = await fetch(`${s.gw.url}/v1/images/edits`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: editWithParts(31),
      });
      const body = await response.json();
      assertEquals(response.status, 400);
      assertEquals(body.error.code, "invalid_multipart");
      assertOk(body.error.message.includes("at most 32 form fields"), body.error.message);
    }
    assertEquals(s.upstreamRequests(), 0);
    await assertNothingCharged(s, 10_000_000, { untouched: true });
    const served = await fetch(`${s.gw.url}/v1/images/edits`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}` },
      body: editWithParts(30),
    });
    assertEquals(served.status, 200, await served.text());
  },
);

Deno.test(
  "image edits: a body of 1,000,000 parts is refused without being read to its end",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const { key: broke } = await s.gw.createKey({ balance: 0 });
    const encoder = new TextEncoder();
    const partsPerChunk = 1000;
    const chunks = 1000;
    const chunk = encoder.encode(
      `--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n`.repeat(partsPerChunk),
    );
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled === chunks) {
          controller.enqueue(encoder.encode("--b--\r\n"));
          controller.close();
          return;
        }
        pulled++;
        controller.enqueue(chunk);
      },
    }, { highWaterMark: 0 });
    const response = await fetch(`${s.gw.url}/v1/images/edits`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${broke}`,
        "content-type": "multipart/form-data; boundary=b",
      },
      body,
    });
    const answer = await response.json();
    assertEquals(response.status, 400);
    assertEquals(answer.error.code, "invalid_multipart");
    // Counting, not timing: what the socket buffered is read, the rest of the body never is.
    assertOk(pulled < chunks / 2, `the client was asked for ${pulled} of ${chunks} chunks`);
    assertEquals(s.upstreamRequests(), 0);
  },
);

Deno.test(
  "a console form of 33 multipart parts is a 400, not a parse of every part",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const form = new FormData();
    for (let i = 0; i < 33; i++) form.append(`f${i}`, "1");
    const response = await fetch(`${s.gw.url}/console/sign-in`, {
      method: "POST",
      headers: { origin: s.gw.url },
      body: form,
      redirect: "manual",
    });
    const text = await response.text();
    assertEquals(response.status, 400, text);
  },
);
