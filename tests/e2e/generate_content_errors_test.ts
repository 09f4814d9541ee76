/**
 * Generate-content errors as Google defines them: unknown and disabled models are 404 NOT_FOUND
 * (models of other groups 403 PERMISSION_DENIED) on every method; every error of the gateway's —
 * a bad key, too little balance, upstream failures, a body too large, a broken stream — is
 * `google.rpc.Status` with the HTTP status its code maps to, every detail typed with `@type`, and
 * `ErrorInfo.reason` in UPPER_SNAKE_CASE. Checked raw and through @google/genai 2.x and 3.x
 * (which parse errors); nothing is charged.
 */

import { ApiError, GoogleGenAI } from "@google/genai";
import { GoogleGenAI as GoogleGenAI3 } from "@google/genai3";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { postJson, serverTest, TEST_TEXT_PRICE } from "../helpers/gateway.ts";
import {
  BREAKER_OFF,
  CHANNEL_TYPES,
  MODEL_OF,
  setupText,
  type TextSetup,
} from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** google.rpc.Code's HTTP status of each status name (google/rpc/code.proto). */
const HTTP_OF: Record<string, number> = {
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
};

/** Asserts `body` is a google.rpc.Status of `status` whose code agrees, and returns its reason. */
function assertGoogleError(body: Json, status: string, label: string): string {
  const error = body?.error;
  assertEquals(error?.status, status, `${label}: ${JSON.stringify(body)}`);
  assertEquals(error.code, HTTP_OF[status], `${label}: code agrees with status`);
  assertOk(typeof error.message === "string" && error.message.length > 0, label);
  assertOk(Array.isArray(error.details) && error.details.length > 0, label);
  for (const detail of error.details) {
    assertOk(String(detail["@type"]).startsWith("type.googleapis.com/google.rpc."), label);
  }
  const info = error.details.find((detail: Json) => detail["@type"].endsWith(".ErrorInfo"));
  assertOk(/^[A-Z][A-Z0-9_]+[A-Z0-9]$/.test(info?.reason), `${label}: reason ${info?.reason}`);
  return info.reason;
}

/** A raw answer's status, checked against its envelope, and the reason. */
async function assertRawError(response: Response, status: string, label: string) {
  const body = await response.json();
  assertEquals(response.status, HTTP_OF[status], `${label}: HTTP status`);
  assertOk(response.headers.get("x-request-id"), label);
  return assertGoogleError(body, status, label);
}

function sdks(s: TextSetup, key = s.key): GoogleGenAI[] {
  const options = { apiKey: key, httpOptions: { baseUrl: s.gw.url } };
  return [new GoogleGenAI(options), new GoogleGenAI3(options) as unknown as GoogleGenAI];
}

/** What an SDK call threw: its HTTP status and the envelope it parsed. */
async function sdkError(call: Promise<unknown>): Promise<{ status: number; body: Json }> {
  const error = await call.then(() => null, (e) => e);
  assertOk(error instanceof ApiError || error?.name === "ApiError", String(error));
  const json = error.message.slice(error.message.indexOf("{"));
  return { status: error.status, body: JSON.parse(json) };
}

const contents = [{ role: "user", parts: [{ text: "hi" }] }];

function generate(s: TextSetup, model: string, method: string, key = s.key, body?: Json) {
  return postJson(s.gw, `/v1beta/models/${model}:${method}`, null, body ?? { contents }, {
    "x-goog-api-key": key,
  });
}

const METHODS = [
  "generateContent",
  "streamGenerateContent",
  "streamGenerateContent?alt=sse",
  "countTokens",
];

Deno.test(
  "generate-content: an unknown or disabled model is 404 NOT_FOUND on every method, one of another group 403",
  serverTest,
  async () => {
    await using s = await setupText();
    await s.gw.putModel("m-off", { kind: "text", price: TEST_TEXT_PRICE, enabled: false });
    await s.gw.putModel("img-off", { kind: "image", price: { per_image: 1000 }, enabled: false });
    await s.gw.putModel("m-vip", { kind: "text", price: TEST_TEXT_PRICE, groups: ["vip"] });
    await s.gw.addChannel({
      type: "gemini",
      base_url: s.gemini.baseUrl,
      keys: ["gemini-upstream-test"],
      models: ["m-off", "img-off", "m-vip"],
      groups: ["default", "vip"],
    });
    const narrow = await s.gw.createKey({ balance: 1_000_000, models: [MODEL_OF.openai] });
    for (const method of METHODS) {
      for (const model of ["no-such-model", "m-off", "img-off"]) {
        const reason = await assertRawError(
          await generate(s, model, method),
          "NOT_FOUND",
          `${model} ${method}`,
        );
        assertEquals(reason, "MODEL_NOT_FOUND");
      }
      for (const [model, key] of [["m-vip", s.key], [MODEL_OF.gemini, narrow.key]]) {
        const reason = await assertRawError(
          await generate(s, model, method, key),
          "PERMISSION_DENIED",
          `${model} ${method}`,
        );
        assertEquals(reason, "MODEL_NOT_ALLOWED");
      }
    }
    // The model is checked before the body: a bad body for a model that does not exist is a 404.
    assertEquals(
      (await generate(s, "m-off", "generateContent", s.key, { contents: [] })).status,
      404,
    );

    for (const ai of sdks(s)) {
      for (const model of ["no-such-model", "m-off"]) {
        const calls = [
          () => ai.models.generateContent({ model, contents: "hi" }),
          () => ai.models.generateContentStream({ model, contents: "hi" }),
          () => ai.models.countTokens({ model, contents: "hi" }),
        ];
        for (const call of calls) {
          const { status, body } = await sdkError(call());
          assertEquals(status, 404);
          assertGoogleError(body, "NOT_FOUND", `sdk ${model}`);
        }
      }
    }
    assertEquals(CHANNEL_TYPES.reduce((n, type) => n + s.count(type), 0), 0);
    await assertNothingCharged(s, 100_000_000, { untouched: true });
    await assertNothingCharged({ gw: s.gw, keyId: narrow.id }, 1_000_000, { untouched: true });
  },
);

Deno.test(
  "generate-content errors: bad key, balance, upstream 5xx and 429, too large — status and code agree",
  serverTest,
  async () => {
    await using s = await setupText({ channel: BREAKER_OFF });
    const model = MODEL_OF.gemini;
    const poor = await s.gw.createKey({ balance: 10 });
    const cases: Array<[string, () => Promise<Response>, string, string]> = [
      [
        "bad key",
        () => generate(s, model, "generateContent", "sk-gw-nope"),
        "UNAUTHENTICATED",
        "INVALID_API_KEY",
      ],
      [
        "too little balance",
        () => generate(s, model, "generateContent", poor.key),
        "FAILED_PRECONDITION",
        "INSUFFICIENT_BALANCE",
      ],
      [
        "unknown model",
        () => generate(s, "nope", "generateContent"),
        "NOT_FOUND",
        "MODEL_NOT_FOUND",
      ],
      [
        "upstream 5xx",
        () => {
          s.gemini.fault = { kind: "status", status: 503 };
          return generate(s, model, "generateContent");
        },
        "UNAVAILABLE",
        "UPSTREAM_UNAVAILABLE",
      ],
      [
        "upstream 429",
        () => {
          s.gemini.fault = { kind: "status", status: 429, retryAfter: "3" };
          return generate(s, model, "generateContent");
        },
        "RESOURCE_EXHAUSTED",
        "UPSTREAM_RATE_LIMITED",
      ],
      [
        "body too large",
        () =>
          generate(
            s,
            model,
            "generateContent",
            s.key,
            JSON.stringify({ contents: [{ parts: [{ text: "x".repeat(33 * 1024 * 1024) }] }] }),
          ),
        "INVALID_ARGUMENT",
        "REQUEST_TOO_LARGE",
      ],
    ];
    for (const [label, send, status, reason] of cases) {
      const response = await send();
      s.gemini.fault = undefined;
      assertEquals(await assertRawError(response, status, label), reason, label);
    }

    for (const ai of sdks(s, "sk-gw-nope")) {
      const { status, body } = await sdkError(ai.models.generateContent({ model, contents: "hi" }));
      assertEquals(status, 401);
      assertGoogleError(body, "UNAUTHENTICATED", "sdk bad key");
    }
    for (const ai of sdks(s, poor.key)) {
      const { status, body } = await sdkError(ai.models.generateContent({ model, contents: "hi" }));
      assertEquals(status, 400);
      assertGoogleError(body, "FAILED_PRECONDITION", "sdk balance");
    }
    for (
      const [upstream, status, name] of [[503, 503, "UNAVAILABLE"], [
        429,
        429,
        "RESOURCE_EXHAUSTED",
      ]] as const
    ) {
      s.gemini.fault = { kind: "status", status: upstream, retryAfter: "3" };
      for (const ai of sdks(s)) {
        const error = await sdkError(ai.models.generateContent({ model, contents: "hi" }));
        assertEquals(error.status, status);
        assertGoogleError(error.body, name, `sdk upstream ${upstream}`);
        if (upstream === 429) {
          // The upstream's retry-after reaches the client as a RetryInfo too.
          assertOk(
            error.body.error.details.some((detail: Json) =>
              detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo" &&
              detail.retryDelay === "3s"
            ),
            JSON.stringify(error.body),
          );
        }
      }
    }
    s.gemini.fault = undefined;

    // The request log records the status the client got.
    await s.gw.settle();
    const logged = (await s.gw.admin("GET", "/admin/requests?limit=1000")).body.data;
    assertOk(logged.some((entry: Json) => entry.status === 503), JSON.stringify(logged[0]));
    assertOk(!logged.some((entry: Json) => entry.status === 502 || entry.status === 413));
    await assertNothingCharged(s, 100_000_000);
    await assertNothingCharged({ gw: s.gw, keyId: poor.id }, 10);
  },
);

/** The error objects of a Gemini stream, SSE (`data:` blocks) or one JSON array. */
function streamErrors(text: string): Json[] {
  const chunks = text.trimStart().startsWith("[")
    ? JSON.parse(text)
    : text.split(/\r?\n\r?\n/).filter((block) => block.startsWith("data:"))
      .map((block) => JSON.parse(block.slice(5)));
  return chunks.filter((chunk: Json) => chunk.error);
}

Deno.test(
  "generate-content in-stream errors: typed details, UPPER_SNAKE reason, code agreeing with status",
  serverTest,
  async () => {
    await using s = await setupText();
    // Converted (the gateway writes the error) and pass-through cut short (the gateway ends it).
    const breaks: Array<[string, () => void]> = [
      [
        "anthropic error event",
        () => s.anthropic.faults.push({ kind: "in_stream_error", afterFrames: 4 }),
      ],
      ["anthropic cut", () => s.anthropic.faults.push({ kind: "die_mid_stream", afterFrames: 4 })],
      ["openai cut", () => s.chat.faults.push({ kind: "die_mid_stream", afterChunks: 2 })],
      ["gemini cut", () => s.gemini.faults.push({ kind: "die_mid_stream", afterFrames: 1 })],
    ];
    for (const [label, breakStream] of breaks) {
      const type = label.startsWith("anthropic")
        ? "anthropic"
        : label.startsWith("openai")
        ? "openai"
        : "gemini";
      for (const method of ["streamGenerateContent?alt=sse", "streamGenerateContent"]) {
        breakStream();
        const response = await generate(s, MODEL_OF[type], method);
        assertEquals(response.status, 200);
        const errors = streamErrors(await response.text());
        assertEquals(errors.length, 1, `${label} ${method}`);
        assertGoogleError(errors[0], "INTERNAL", `${label} ${method}`);
      }
      for (const ai of sdks(s)) {
        breakStream();
        const { status, body } = await sdkError((async () => {
          for await (
            const _ of await ai.models.generateContentStream({
              model: MODEL_OF[type],
              contents: "hi",
            })
          ) {
            // read to the error
          }
        })());
        assertEquals(status, 500, label);
        assertGoogleError(body, "INTERNAL", `sdk ${label}`);
      }
    }
    await s.gw.settle();
    await assertNothingCharged(s, 100_000_000);
  },
);
