/**
 * Every path parameter, query value, cursor and JSON body is checked: odd input is a 4xx with a
 * stable code and a message naming the parameter, in the interface's own envelope, never a 500,
 * and nothing reaches an upstream or moves money.
 */

import { assertNothingCharged } from "../../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { CHANNEL_TYPES, MODEL_OF, setupText } from "../../helpers/text_setup.ts";

type Envelope = "openai" | "anthropic" | "gemini";
type Credential = "key" | "x-api-key" | "admin" | "none";

interface Case {
  name: string;
  method?: string;
  path: string;
  credential?: Credential;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  status: number;
  code: string;
  /** The parameter the message (and, in the OpenAI envelope, `param`) names. */
  param?: string | null;
  envelope?: Envelope;
}

const MODEL = MODEL_OF.openai;
const chat = (extra: string) =>
  `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}]${extra}}`;
const deep = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;
const notUtf8 = Uint8Array.from([
  ...new TextEncoder().encode(`{"model":"${MODEL}","messages":[{"role":"user","content":"`),
  0xff,
  0xfe,
  0xe0,
  0xa4,
  ...new TextEncoder().encode(`"}]}`),
]);

const CASES: Case[] = [
  // path parameters: broken percent-encoding, over-long, control characters, wrong id shapes
  {
    name: "a video task id that is not UTF-8",
    path: "/v1/video/generations/%E0%A4%A",
    status: 400,
    code: "invalid_request",
    param: "task_id",
  },
  {
    name: "an image task id that is not UTF-8",
    path: "/v1/images/tasks/%ff",
    status: 400,
    code: "invalid_request",
    param: "task_id",
  },
  {
    name: "a video task id of the wrong shape",
    path: "/v1/video/generations/not-a-task",
    status: 404,
    code: "task_not_found",
    param: "task_id",
  },
  {
    name: "a 300-character task id",
    path: `/v1/video/generations/task_${"a".repeat(300)}`,
    status: 400,
    code: "invalid_request",
    param: "task_id",
  },
  {
    name: "an admin key id that is not percent-encoding",
    path: "/admin/keys/%zz",
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "id",
  },
  {
    name: "an admin key id of the wrong shape",
    path: "/admin/keys/nope",
    credential: "admin",
    status: 404,
    code: "key_not_found",
    param: "id",
  },
  {
    name: "a credit to a key id that is not UTF-8",
    method: "POST",
    path: "/admin/keys/%C3/credit",
    credential: "admin",
    body: `{"amount":5}`,
    status: 400,
    code: "invalid_request",
    param: "id",
  },
  {
    name: "a 3,000-character channel id",
    path: `/admin/channels/${"c".repeat(3000)}`,
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "id",
  },
  {
    name: "a channel id with a space",
    method: "DELETE",
    path: "/admin/channels/has%20space",
    credential: "admin",
    status: 404,
    code: "channel_not_found",
    param: "id",
  },
  {
    name: "a catalog id with a space",
    method: "PUT",
    path: "/admin/models/has%20space",
    credential: "admin",
    body: `{"kind":"text","price":{"input":1,"output":1}}`,
    status: 400,
    code: "invalid_request",
    param: "id",
  },
  {
    name: "a catalog id with a control character",
    method: "PUT",
    path: "/admin/models/a%00b",
    credential: "admin",
    body: `{"kind":"text","price":{"input":1,"output":1}}`,
    status: 400,
    code: "invalid_request",
    param: "id",
  },
  {
    name: "a generate-content model that is not UTF-8",
    method: "POST",
    path: "/v1beta/models/%ff:generateContent",
    body: `{"contents":[{"parts":[{"text":"hi"}]}]}`,
    status: 400,
    code: "invalid_request",
    param: "model",
    envelope: "gemini",
  },
  {
    name: "a Gemini model id that is not UTF-8",
    path: "/v1beta/models/%ff",
    status: 400,
    code: "invalid_request",
    param: "id",
    envelope: "gemini",
  },
  {
    name: "a media file name that is not UTF-8",
    path: "/media/%ff.png",
    credential: "none",
    status: 400,
    code: "invalid_request",
    param: "file",
  },
  // query values and cursors
  {
    name: "a cursor that is not base64url",
    path: "/admin/requests?cursor=!!!",
    credential: "admin",
    status: 400,
    code: "invalid_cursor",
    param: "cursor",
  },
  {
    name: "a cursor KV cannot decode",
    path: "/admin/ledger?cursor=xyz",
    credential: "admin",
    status: 400,
    code: "invalid_cursor",
    param: "cursor",
  },
  {
    name: "a cursor KV cannot decode, on every list",
    path: "/admin/keys?cursor=AgA",
    credential: "admin",
    status: 400,
    code: "invalid_cursor",
    param: "cursor",
  },
  {
    name: "a cursor outside the since/until range",
    path:
      "/admin/ledger?order=asc&since=2026-01-01T00:00:00Z&until=2026-02-01T00:00:00Z&cursor=AAAA",
    credential: "admin",
    status: 400,
    code: "invalid_cursor",
    param: "cursor",
  },
  {
    name: "a 3,000-character cursor",
    path: `/admin/tasks?cursor=${"A".repeat(3000)}`,
    credential: "admin",
    status: 400,
    code: "invalid_cursor",
    param: "cursor",
  },
  {
    name: "a limit of 1e400",
    path: "/admin/ledger?limit=1e400",
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "limit",
  },
  {
    name: "a fractional limit",
    path: "/admin/channels?limit=1.5",
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "limit",
  },
  {
    name: "a limit given twice",
    path: "/admin/keys?limit=5&limit=6",
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "limit",
  },
  {
    name: "an order that is not UTF-8",
    path: "/admin/tasks?order=%ff",
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "order",
  },
  {
    name: "since after until",
    path: "/admin/ledger?since=2027-01-01T00:00:00Z&until=2026-01-01T00:00:00Z",
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "since",
  },
  {
    name: "a key filter of the wrong shape",
    path: "/admin/requests?key=nope",
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "key",
  },
  {
    name: "a key filter of 5,000 characters",
    path: `/admin/ledger?key=key_${"k".repeat(5000)}`,
    credential: "admin",
    status: 400,
    code: "invalid_request",
    param: "key",
  },
  {
    name: "a Gemini page token that is not base64",
    path: "/v1beta/models?pageToken=!!!",
    status: 400,
    code: "invalid_request",
    param: "pageToken",
    envelope: "gemini",
  },
  {
    name: "a Gemini page size of 0",
    path: "/v1beta/models?pageSize=0",
    status: 400,
    code: "invalid_request",
    param: "pageSize",
    envelope: "gemini",
  },
  {
    name: "an Anthropic model-list limit that is a word",
    path: "/v1/models?limit=many",
    credential: "x-api-key",
    headers: { "anthropic-version": "2023-06-01" },
    status: 400,
    code: "invalid_request",
    param: "limit",
    envelope: "anthropic",
  },
  {
    name: "a generate-content alt that is neither sse nor json",
    method: "POST",
    path: `/v1beta/models/${MODEL}:streamGenerateContent?alt=xml`,
    body: `{"contents":[{"parts":[{"text":"hi"}]}]}`,
    status: 400,
    code: "invalid_request",
    param: "alt",
    envelope: "gemini",
  },
  // JSON bodies
  {
    name: "a chat body that is not UTF-8",
    method: "POST",
    path: "/v1/chat/completions",
    body: notUtf8,
    status: 400,
    code: "invalid_json",
    param: null,
  },
  {
    name: "a messages body that is not UTF-8",
    method: "POST",
    path: "/v1/messages",
    body: notUtf8,
    status: 400,
    code: "invalid_json",
    envelope: "anthropic",
  },
  {
    name: "a JSON body that is a number",
    method: "POST",
    path: "/v1/responses",
    body: "42",
    status: 400,
    code: "invalid_request",
    param: null,
  },
  {
    name: "a JSON body that is a string, on generate-content",
    method: "POST",
    path: `/v1beta/models/${MODEL}:generateContent`,
    body: `"hi"`,
    status: 400,
    code: "invalid_request",
    envelope: "gemini",
  },
  {
    name: "an admin body that is an array",
    method: "POST",
    path: "/admin/keys",
    credential: "admin",
    body: "[]",
    status: 400,
    code: "invalid_request",
    param: null,
  },
  {
    name: "a max_tokens of 1e400",
    method: "POST",
    path: "/v1/chat/completions",
    body: chat(`,"max_tokens":1e400`),
    status: 400,
    code: "invalid_request",
    param: "max_tokens",
  },
  {
    name: "a temperature of -1e400, which no schema looks at closely",
    method: "POST",
    path: "/v1/chat/completions",
    body: chat(`,"temperature":-1e400`),
    status: 400,
    code: "invalid_request",
    param: "temperature",
  },
  {
    name: "a body nested 100,000 levels deep",
    method: "POST",
    path: "/v1/chat/completions",
    body: chat(`,"metadata":${deep(100_000)}`),
    status: 400,
    code: "invalid_json",
    param: null,
  },
  {
    name: "a tool schema nested 100,000 levels deep, on generate-content",
    method: "POST",
    path: `/v1beta/models/${MODEL_OF.anthropic}:generateContent`,
    body: `{"contents":[{"parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f",` +
      `"parameters":{"a":${deep(100_000)}}}]}]}`,
    status: 400,
    code: "invalid_json",
    envelope: "gemini",
  },
  {
    name: "an opening balance of 1e400",
    method: "POST",
    path: "/admin/keys",
    credential: "admin",
    body: `{"name":"x","balance":1e400}`,
    status: 400,
    code: "invalid_request",
    param: "balance",
  },
];

function checkEnvelope(
  envelope: Envelope,
  // deno-lint-ignore no-explicit-any
  body: any,
  status: number,
): { code: string; message: string } {
  switch (envelope) {
    case "anthropic":
      assertEquals(body.type, "error");
      assertEquals(typeof body.error.type, "string");
      return { code: body.error.code, message: body.error.message };
    case "gemini":
      assertEquals(body.error.code, status);
      assertEquals(typeof body.error.status, "string");
      // ErrorInfo.reason is the gateway's code in UPPER_SNAKE_CASE.
      return { code: body.error.details[0].reason.toLowerCase(), message: body.error.message };
    default:
      assertEquals(typeof body.error.type, "string");
      return { code: body.error.code, message: body.error.message };
  }
}

Deno.test(
  `odd input: ${CASES.length} odd paths, queries, cursors and bodies are 4xx in their envelope, naming the parameter; nothing is charged`,
  serverTest,
  async () => {
    await using s = await setupText();
    const opening = await s.gw.balance(s.keyId);
    const failures: string[] = [];
    for (const test of CASES) {
      const credential = test.credential ?? "key";
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (credential === "admin") headers.authorization = `Bearer ${ADMIN_TOKEN}`;
      if (credential === "x-api-key") headers["x-api-key"] = s.key;
      if (credential === "key") {
        headers.authorization = `Bearer ${s.key}`;
        headers["x-api-key"] = s.key;
        headers["x-goog-api-key"] = s.key;
      }
      const response = await fetch(`${s.gw.url}${test.path}`, {
        method: test.method ?? "GET",
        headers: { ...headers, ...test.headers },
        body: test.body as BodyInit | undefined,
      });
      const text = await response.text();
      try {
        assertEquals(response.status, test.status, `status ${response.status}: ${text}`);
        assertEquals(response.headers.get("content-type"), "application/json");
        const body = JSON.parse(text);
        const { code, message } = checkEnvelope(test.envelope ?? "openai", body, test.status);
        assertEquals(code, test.code);
        assertOk(message.length > 15, message);
        if (test.param) {
          assertOk(message.includes(test.param), `'${test.param}' not in: ${message}`);
        }
        if ((test.envelope ?? "openai") === "openai" && test.param !== undefined) {
          assertEquals(body.error.param, test.param);
        }
      } catch (error) {
        failures.push(`${test.name}: ${(error as Error).message}`);
      }
    }
    assertEquals(failures, []);
    for (const type of CHANNEL_TYPES) assertEquals(s.count(type), 0, `${type} upstream was called`);
    await assertNothingCharged(s, opening, { untouched: true });
  },
);

Deno.test(
  "odd input: Gemini page tokens round-trip through every model, one a page",
  serverTest,
  async () => {
    await using s = await setupText();
    const seen: string[] = [];
    let token = "";
    for (let page = 0; page < 10; page++) {
      const response = await fetch(
        `${s.gw.url}/v1beta/models?pageSize=1${
          token ? `&pageToken=${encodeURIComponent(token)}` : ""
        }`,
        { headers: { "x-goog-api-key": s.key } },
      );
      assertEquals(response.status, 200);
      const body = await response.json();
      seen.push(...body.models.map((model: { name: string }) => model.name));
      if (!body.nextPageToken) break;
      token = body.nextPageToken;
    }
    assertEquals(seen, Object.values(MODEL_OF).sort().map((id) => `models/${id}`));
  },
);

Deno.test(
  "odd input: a cursor this API gave still pages, and the whole list comes back once",
  serverTest,
  async () => {
    await using s = await setupText();
    for (let i = 0; i < 5; i++) await s.gw.createKey({ name: `k${i}` });
    const ids: string[] = [];
    let cursor = "";
    do {
      const page = await s.gw.admin("GET", `/admin/keys?limit=2&order=asc&cursor=${cursor}`);
      assertEquals(page.status, 200);
      ids.push(...page.body.data.map((key: { id: string }) => key.id));
      cursor = page.body.cursor ?? "";
    } while (cursor);
    assertEquals(ids.length, 6);
    assertEquals(new Set(ids).size, 6);
  },
);
