import { assertEquals, assertOk } from "../helpers/assert.ts";
import { GatewayError } from "../../core/errors.ts";
import { MAX_MULTIPART_PARTS, readMultipartEntries } from "../../routes/multipart_body.ts";

const BOUNDARY = "gateway-test-boundary";
const encoder = new TextEncoder();
const part = (i: number) =>
  encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`);

/** A request whose body is `total` tiny parts, one per pull; `pulled()` counts the pulls made. */
function manyParts(total: number) {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === total) {
        controller.enqueue(encoder.encode(`--${BOUNDARY}--\r\n`));
        controller.close();
        return;
      }
      controller.enqueue(part(sent++));
    },
  }, { highWaterMark: 0 });
  const request = new Request("http://gateway.test/v1/images/edits", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  return { request, pulled: () => sent };
}

const limits = { maxFileBytes: 1024 * 1024, maxTotalBytes: 1024 * 1024 };

Deno.test("multipart: 32 parts are read; a 33rd is a 400 naming the limit", async () => {
  const ok = manyParts(MAX_MULTIPART_PARTS);
  assertEquals((await readMultipartEntries(ok.request, limits)).length, 32);
  const over = manyParts(MAX_MULTIPART_PARTS + 1);
  const error = await readMultipartEntries(over.request, limits).catch((error) => error);
  assertOk(error instanceof GatewayError);
  assertEquals([error.status, error.code], [400, "invalid_multipart"]);
  assertOk(error.message.includes("at most 32 form fields"), error.message);
});

Deno.test("multipart: a body of 1,000,000 parts is read no further than its 34th part", async () => {
  const { request, pulled } = manyParts(1_000_000);
  const error = await readMultipartEntries(request, limits).catch((error) => error);
  assertEquals((error as GatewayError).code, "invalid_multipart");
  // The 33rd part is known to have ended when the 34th begins; nothing after it is pulled.
  assertOk(pulled() <= MAX_MULTIPART_PARTS + 2, `pulled ${pulled()} parts`);
});

Deno.test("multipart: a text field over 64 KB is a 400 naming it", async () => {
  const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n${
    "x".repeat(64 * 1024 + 1)
  }\r\n--${BOUNDARY}--\r\n`;
  const request = new Request("http://gateway.test/", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
  const error = await readMultipartEntries(request, limits).catch((error) => error);
  assertEquals([error.status, error.param], [400, "prompt"]);
});
