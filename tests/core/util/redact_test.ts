import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { REDACTED, redactSecrets } from "../../../core/util/redact.ts";
import { replaceSpans, secretSpans } from "../../../core/util/secret_spans.ts";

/** A key with no shape redactSecrets knows, so only the key search can find it. */
const KEY = "gemini-AbCdEf123456";
/** The same key's letters and digits with nothing between. */
const KEY_CHARS = "geminiAbCdEf123456";
const OTHER = "zq-OtherChannelKey-77";

const percent = (char: string) => `%${char.charCodeAt(0).toString(16)}`;

Deno.test("redactSecrets() finds a key as written, several times, and every key given", () => {
  assertEquals(
    redactSecrets(`bad key ${KEY}; again ${KEY}. other ${OTHER}`, [KEY, OTHER]),
    `bad key ${REDACTED}; again ${REDACTED}. other ${REDACTED}`,
  );
});

Deno.test("redactSecrets() finds a key split by spaces, line breaks or other separators", () => {
  const forms = [
    "gemini-AbC dEf123456",
    "gemini-AbCdEf\n-123456",
    "gemini-\r\nAbCdEf123456",
    "gemini\t-\tAbCdEf123456",
    [...KEY].join(" "),
    [...KEY].join("\n"),
    [...KEY].join(" . "),
    [...KEY].join("_"),
    "gemini—AbCdEf·123456", // non-ASCII between
  ];
  for (const form of forms) {
    assertEquals(redactSecrets(`key: <${form}> end`, [KEY]), `key: <${REDACTED}> end`, form);
  }
});

Deno.test("redactSecrets() finds a key percent-encoded, in whole or in part, either case", () => {
  const forms = [
    [...KEY].map(percent).join(""),
    [...KEY].map(percent).join("").toUpperCase(),
    [...KEY].map((char, index) => index % 3 ? char : percent(char)).join(""),
    encodeURIComponent(KEY),
    "gemini%2DAbCdEf%20123456",
    [...KEY].map(percent).join("%20"),
  ];
  for (const form of forms) {
    assertEquals(redactSecrets(`url ?key=${form}&x=1`, [KEY]), `url ?key=${REDACTED}&x=1`, form);
  }
});

Deno.test("redactSecrets() finds a key in JSON text written with escapes, and keeps it JSON", () => {
  const message = `quoted ${[...KEY].join("\n")} and ${KEY.slice(0, 4)}\t${KEY.slice(4)}`;
  const json = JSON.stringify({ error: { message, code: 400 } });
  assertOk(json.includes("\\n"));
  const redacted = redactSecrets(json, [KEY], { maxLength: Infinity });
  assertEquals(JSON.parse(redacted), {
    error: { message: `quoted ${REDACTED} and ${REDACTED}`, code: 400 },
  });
  const unicode = `{"m":"${
    [...KEY].map((char) => `\\u00${char.charCodeAt(0).toString(16)}`).join("")
  }"}`;
  assertEquals(JSON.parse(unicode).m, KEY);
  assertEquals(JSON.parse(redactSecrets(unicode, [KEY])), { m: REDACTED });
});

Deno.test("secretSpans() never crosses an unescaped double quote (a JSON string's edge)", () => {
  const json = `{"a":"${KEY.slice(0, 9)}","b":"${KEY.slice(9)}"}`;
  assertEquals(secretSpans(json, [KEY]), []);
  const escaped = JSON.stringify(`${KEY.slice(0, 9)}"${KEY.slice(9)}`);
  assertEquals(JSON.parse(redactSecrets(escaped, [KEY])), REDACTED);
});

Deno.test("redactSecrets() leaves other text alone: partial keys, other letters between", () => {
  const untouched = [
    `only part: ${KEY.slice(0, 12)}`,
    `letters between: ${KEY.slice(0, 10)}x${KEY.slice(10)}`,
    `${KEY_CHARS.slice(1)} misses its first character`,
    "100% sure, %zz is no escape, a \\ backslash",
  ];
  for (const text of untouched) assertEquals(redactSecrets(text, [KEY]), text);
  // Short secrets are never searched for (they would hide words); 6–7 characters only as written.
  assertEquals(redactSecrets("a b c d e f g", ["abcdefg"]), "a b c d e f g");
  assertEquals(redactSecrets("pw abcdefg", ["abcdefg"]), `pw ${REDACTED}`);
  assertEquals(redactSecrets("abcde", ["abcde"]), "abcde");
});

Deno.test("secretSpans() finds overlapping and repeated keys as one span each run", () => {
  const text = `x ${KEY}${KEY} y ${KEY_CHARS.slice(0, 5)} ${KEY_CHARS.slice(5)} z`;
  const spans = secretSpans(text, [KEY, KEY.toUpperCase()]);
  assertEquals(replaceSpans(text, spans, "#"), "x # y # z");
  // A text that repeats a key's opening before the key itself (the matcher falls back).
  const repeated = `gemigemini-Ab${KEY}`;
  assertEquals(redactSecrets(repeated, [KEY]), `gemigemini-Ab${REDACTED}`);
});

Deno.test("redactSecrets() still redacts key-shaped text without being given the key", () => {
  assertEquals(redactSecrets("Bearer abcdefghijkl"), `Bearer ${REDACTED}`);
  assertEquals(redactSecrets("use sk-proj-abcdefghij"), `use ${REDACTED}`);
  assertEquals(redactSecrets("x".repeat(1_200)).length, 1_000 + "… [truncated]".length);
});

Deno.test("redactSecrets() hides the gateway's personal access tokens", () => {
  const token = `gwpat-${"Ab1".repeat(14)}x`;
  assertEquals(redactSecrets(`token ${token} refused`), `token ${REDACTED} refused`);
});
