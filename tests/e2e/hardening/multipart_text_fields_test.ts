/**
 * A multipart text field that is not UTF-8 is a 400 naming it, on every multipart route, and
 * nothing is charged (found by the fuzz test on /v1/audio/transcriptions: it was a 500).
 */

import { assertEquals } from "../../helpers/assert.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";

const NOT_UTF8 = new Uint8Array([0xd5, 0x95, 0x1b, 0xc0, 0xac, 0x19, 0xa4, 0x8e]);

function bodyWithModel(value: Uint8Array): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  return new Uint8Array([
    ...encoder.encode('--b0undary\r\nContent-Disposition: form-data; name="model"\r\n\r\n'),
    ...value,
    ...encoder.encode("\r\n--b0undary--\r\n"),
  ]);
}

Deno.test(
  "multipart: a text field that is not UTF-8 is a 400 naming it, on every multipart route, nothing charged",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const { id, key } = await gw.createKey({ name: "multipart", balance: 1_000_000 });
    for (
      const path of [
        "/v1/audio/transcriptions",
        "/v1/audio/translations",
        "/v1/images/edits",
        "/v1/video/generations",
      ]
    ) {
      const response = await fetch(`${gw.url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "multipart/form-data; boundary=b0undary",
        },
        body: bodyWithModel(NOT_UTF8),
      });
      const body = await response.json();
      assertEquals(response.status, 400, `${path}: ${JSON.stringify(body)}`);
      assertEquals(body.error.type, "invalid_request_error", path);
    }
    assertEquals(await gw.assertLedgerInvariant(id), 1_000_000);
  },
);
