import { assertEquals } from "../../helpers/assert.ts";
import { decodeDataUrl, isDataUrl } from "../../../core/media/data_url.ts";

const BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
const B64 = BYTES.toBase64();
const PERCENT = [...BYTES].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");

Deno.test("decodeDataUrl: base64 and percent-encoded bodies, with or without parameters", () => {
  for (
    const url of [
      `data:image/png;base64,${B64}`,
      `DATA:IMAGE/PNG;BASE64,${B64}`,
      `data:image/png;name=kite.png;base64,${B64}`,
      `data:image/png; base64,${B64}`,
      ` data:image/png;base64,${B64.slice(0, 4)}\n${B64.slice(4)}`,
      `data:image/png;base64,${B64.replaceAll("=", "%3D")}`,
      `data:image/png,${PERCENT}`,
      `data:image/png,%89PNG%0D%0A%1A%0A%00%FF`,
    ]
  ) {
    const decoded = decodeDataUrl(url);
    assertEquals(decoded && [...decoded.bytes], [...BYTES], url);
    assertEquals(decoded?.declaredType, "image/png", url);
  }
  assertEquals(decodeDataUrl(`data:;base64,${B64}`)?.declaredType, "");
  assertEquals(
    [...decodeDataUrl("data:text/plain,a%20b%zz")!.bytes],
    [...new TextEncoder().encode("a b%zz")],
  );
});

Deno.test("decodeDataUrl: not a data URL, or a base64 body that is not base64 → null", () => {
  for (
    const url of [
      "https://cdn.example/a.png",
      "data:image/png;base64",
      "data:image/png;base64,not base64!",
      B64,
    ]
  ) {
    assertEquals(decodeDataUrl(url), null, url);
  }
  assertEquals([isDataUrl(" Data:x,1"), isDataUrl("https://a/data:x")], [true, false]);
});
