import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertEquals } from "../helpers/assert.ts";
import { postJson, serverTest } from "../helpers/gateway.ts";
import { setupImages } from "../helpers/image_setup.ts";
import {
  maskPng,
  nonSquarePng,
  notAPng,
  pngOver4MB,
  squareOpaquePngWithAlpha,
  squareOpaqueRgbPng,
  squarePngWithTransparency,
  truncatedPng,
} from "../helpers/png_fixtures.ts";

/** [name, body, expected status, error code or param, message fragment]. */
const GENERATION_CASES: Array<[string, Record<string, unknown>, number, string, string]> = [
  ["prompt missing", {}, 400, "prompt", "prompt is required"],
  ["prompt too long", { prompt: "x".repeat(1001) }, 400, "prompt", "at most 1,000"],
  ["n zero", { prompt: "p", n: 0 }, 400, "n", "at least 1"],
  ["n eleven", { prompt: "p", n: 11 }, 400, "n", "at most 10"],
  ["n fraction", { prompt: "p", n: 1.5 }, 400, "n", "integer"],
  ["size not WxH", { prompt: "p", size: "big" }, 400, "size", "WIDTHxHEIGHT"],
  ["size edge too long", { prompt: "p", size: "4096x1024" }, 400, "size", "longest edge"],
  ["size not multiple of 16", { prompt: "p", size: "1000x1000" }, 400, "size", "multiple of 16"],
  ["size aspect over 3:1", { prompt: "p", size: "3264x1056" }, 400, "size", "aspect ratio"],
  ["size too few pixels", { prompt: "p", size: "512x512" }, 400, "size", "pixel count"],
  ["quality unknown", { prompt: "p", quality: "ultra" }, 400, "quality", "auto, low"],
  [
    "response_format unknown",
    { prompt: "p", response_format: "png" },
    400,
    "response_format",
    "'url' or 'b64_json'",
  ],
  ["stream", { prompt: "p", stream: true }, 400, "stream", "X-Gateway-Async-Task"],
  ["unknown model", { prompt: "p", model: "gen-image-9" }, 404, "model", "does not exist"],
];

Deno.test(
  "image generation: every rule has its own 400, nothing held, nothing sent upstream",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    await s.gw.putModel("text-model", { kind: "text", price: { input: 1, output: 1 } });
    const cases = [
      ...GENERATION_CASES,
      [
        "text model",
        { prompt: "p", model: "text-model" },
        400,
        "model",
        "is a text model",
      ] as const,
    ];
    for (const [name, body, status, param, fragment] of cases) {
      const response = await postJson(s.gw, "/v1/images/generations", s.key, body);
      const error = (await response.json()).error;
      assertEquals(response.status, status, name);
      assertEquals(error.param, param, name);
      assertEquals(error.message.includes(fragment), true, `${name}: ${error.message}`);
    }
    const bad = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "p" }, {
      "x-gateway-async-task": "maybe",
    });
    assertEquals(bad.status, 400);
    assertEquals((await bad.json()).error.param, "X-Gateway-Async-Task");
    const notJson = await postJson(s.gw, "/v1/images/generations", s.key, "{nope");
    assertEquals((await notJson.json()).error.code, "invalid_json");
    assertEquals(s.upstreamRequests(), 0);
    await assertNothingCharged(s, 10_000_000, { untouched: true });
  },
);

Deno.test(
  "image generation: listed and custom sizes that meet every rule are accepted",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    for (const size of ["auto", "2048x1152", "2160x3840", "1280x720", "3840x1280"]) {
      const response = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "p", size });
      assertEquals(response.status, 200, size);
      await response.body?.cancel();
    }
  },
);

function editForm(
  files: Record<string, Uint8Array | Uint8Array[]>,
  fields: Record<string, string>,
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [name, value] of Object.entries(files)) {
    for (const bytes of Array.isArray(value) ? value : [value]) {
      form.append(name, new Blob([bytes as Uint8Array<ArrayBuffer>]), `${name}.png`);
    }
  }
  return form;
}

Deno.test(
  "image edits: every file and field rule has its own 400, nothing held, nothing sent",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const good = squarePngWithTransparency(64);
    const cases: Array<[string, FormData, string, string]> = [
      ["no image", editForm({}, { prompt: "p" }), "image", "image is required"],
      ["no prompt", editForm({ image: good }, {}), "prompt", "prompt is required"],
      ["not a PNG", editForm({ image: notAPng() }, { prompt: "p" }), "image", "not a PNG"],
      ["truncated", editForm({ image: truncatedPng() }, { prompt: "p" }), "image", "truncated"],
      [
        "over 4 MB",
        editForm({ image: pngOver4MB() }, { prompt: "p" }),
        "image",
        "smaller than 4 MB",
      ],
      [
        "not square",
        editForm({ image: nonSquarePng(64, 32) }, { prompt: "p" }),
        "image",
        "square",
      ],
      [
        "opaque with alpha, no mask",
        editForm({ image: squareOpaquePngWithAlpha(64) }, { prompt: "p" }),
        "image",
        "every pixel is opaque",
      ],
      [
        "RGB without alpha, no mask",
        editForm({ image: squareOpaqueRgbPng(64) }, { prompt: "p" }),
        "image",
        "no alpha channel",
      ],
      [
        "mask of other dimensions",
        editForm({ image: good, mask: maskPng(32, 32) }, { prompt: "p" }),
        "mask",
        "mask must have the image's dimensions",
      ],
      [
        "mask not PNG",
        editForm({ image: good, mask: notAPng() }, { prompt: "p" }),
        "mask",
        "not a PNG",
      ],
      [
        "second image not square",
        editForm({ "image[]": [good, nonSquarePng()] }, { prompt: "p" }),
        "image",
        "image 2",
      ],
      [
        "n not a number",
        editForm({ image: good }, { prompt: "p", n: "two" }),
        "n",
        "whole number",
      ],
      ["n eleven", editForm({ image: good }, { prompt: "p", n: "11" }), "n", "at most 10"],
      [
        "size rule",
        editForm({ image: good }, { prompt: "p", size: "1000x1000" }),
        "size",
        "multiple of 16",
      ],
      [
        "generation-only model",
        editForm({ image: good }, { prompt: "p", model: "gen-image-2-4k" }),
        "model",
        "does not edit images",
      ],
    ];
    for (const [name, form, param, fragment] of cases) {
      const response = await postJson(s.gw, "/v1/images/edits", s.key, form);
      const error = (await response.json()).error;
      assertEquals(response.status, 400, `${name}: ${error.message}`);
      assertEquals(error.param, param, name);
      assertEquals(error.message.includes(fragment), true, `${name}: ${error.message}`);
    }
    const json = await postJson(s.gw, "/v1/images/edits", s.key, { prompt: "p" });
    assertEquals((await json.json()).error.code, "invalid_content_type");
    assertEquals(s.upstreamRequests(), 0);
    await assertNothingCharged(s, 10_000_000, { untouched: true });
  },
);

Deno.test(
  "image edits: an opaque image with a mask is accepted; user is passed on",
  serverTest,
  async () => {
    await using s = await setupImages("openai-images");
    const response = await postJson(
      s.gw,
      "/v1/images/edits",
      s.key,
      editForm({ image: squareOpaqueRgbPng(64), mask: maskPng(64, 64) }, {
        prompt: "p",
        n: "2",
        user: "end-user-7",
      }),
    );
    assertEquals(response.status, 200);
    assertEquals((await response.json()).data.length, 2);
    assertEquals(s.openai!.requests[0].body.user, "end-user-7");
    assertEquals(s.openai!.requests[0].body.n, "2");
  },
);

Deno.test(
  "image requests with too little balance: 402 before anything is sent",
  serverTest,
  async () => {
    await using s = await setupImages("gemini", { balance: 50_000 });
    const response = await postJson(s.gw, "/v1/images/generations", s.key, { prompt: "p", n: 2 });
    assertEquals(response.status, 402);
    assertEquals(response.headers.get("x-should-retry"), "false");
    assertEquals((await response.json()).error.code, "insufficient_balance");
    assertEquals(s.upstreamRequests(), 0);
    await assertNothingCharged(s, 50_000, { untouched: true });
  },
);
