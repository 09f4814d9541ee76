/**
 * An upstream's in-stream error event that quotes the channel's key — as written, split by
 * separators, or percent-encoded — never shows the key to the client, through any of the 16
 * upstream format × client interface pairs (pass-through and converted), and costs nothing.
 * The client's bytes are read raw: what an SDK would parse is exactly what crossed the wire.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import {
  CHANNEL_TYPES,
  setupText,
  type TextChannelType,
  type TextSetup,
  UPSTREAM_KEY_OF,
} from "../../helpers/text_setup.ts";
import { INBOUND, send } from "../../helpers/text_inbound.ts";

const percent = (char: string) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`;

/** The key as an upstream might quote it: whole, split, spaced out, percent-encoded. */
function keyForms(key: string): string[] {
  const chars = [...key];
  return [
    key,
    `${key.slice(0, 5)} ${key.slice(5)}`,
    key.replaceAll("-", "-\n"),
    chars.join(" "),
    chars.join("."),
    chars.map(percent).join(""),
    chars.map((char, index) => index % 2 ? percent(char) : char).join(""),
  ];
}

/**
 * Whether `text` shows `key`'s letters and digits in order with nothing but other characters
 * between them, read as sent, with JSON escapes undone, or with percent-escapes undone.
 */
function revealsKey(text: string, key: string): boolean {
  const skeleton = (value: string) => value.replace(/[^A-Za-z0-9]/g, "");
  const jsonUnescaped = (value: string) =>
    value.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)))
      .replace(/\\[nrtbf"\\/]/g, " ");
  const percentDecoded = (value: string) =>
    value.replace(/%([0-9a-fA-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
  const wanted = skeleton(key);
  return [text, jsonUnescaped(text), percentDecoded(jsonUnescaped(text))].some((form) =>
    skeleton(form).includes(wanted)
  );
}

function quoteKeyInStream(s: TextSetup, type: TextChannelType, message: string): void {
  if (type === "openai") s.chat.faults.push({ kind: "in_stream_error", afterChunks: 2, message });
  if (type === "openai-responses") {
    s.responses.faults.push({ kind: "in_stream_error", afterFrames: 4, message });
  }
  if (type === "anthropic") {
    s.anthropic.faults.push({ kind: "in_stream_error", afterFrames: 4, message });
  }
  if (type === "gemini") s.gemini.faults.push({ kind: "in_stream_error", afterFrames: 1, message });
}

Deno.test("revealsKey sees every form keyForms makes (the check below can fail)", () => {
  for (const key of Object.values(UPSTREAM_KEY_OF)) {
    for (const form of keyForms(key)) {
      assertOk(revealsKey(`x ${JSON.stringify(form)} y`, key), form);
    }
    assertOk(!revealsKey("nothing to see [redacted]", key));
  }
});

for (const [name, inbound] of Object.entries(INBOUND)) {
  Deno.test(
    `${name}: an in-stream error quoting the channel's key, from every channel type, reaches the client without it; no charge`,
    serverTest,
    async () => {
      await using s = await setupText();
      for (const type of CHANNEL_TYPES) {
        const key = UPSTREAM_KEY_OF[type];
        const message = `Incorrect API key provided: ${keyForms(key).join(" / ")}`;
        quoteKeyInStream(s, type, message);
        const response = await send(s, inbound, type, true);
        assertEquals(response.status, 200, `${name} ← ${type}`);
        const text = await response.text();
        assertOk(inbound.streamError(text), `${name} ← ${type}: ${text.slice(-400)}`);
        assertOk(!revealsKey(text, key), `${name} ← ${type} shows the key: ${text.slice(-600)}`);
        assertOk(text.includes("[redacted]"), `${name} ← ${type}: ${text.slice(-600)}`);
      }
      await s.gw.settle();
      const records = (await s.gw.admin("GET", "/admin/requests?limit=10")).body.data;
      assertEquals(records.length, CHANNEL_TYPES.length);
      for (const key of Object.values(UPSTREAM_KEY_OF)) {
        assertOk(!revealsKey(JSON.stringify(records), key), "a request record shows the key");
      }
      await assertNothingCharged(s, 100_000_000);
    },
  );
}
