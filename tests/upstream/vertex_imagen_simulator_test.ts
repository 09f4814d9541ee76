/** The Vertex simulator's Imagen `:predict` is as strict as Google documents it. */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { startVertexUpstream } from "./vertex.ts";
import { imagenPredict } from "./vertex_imagen.ts";
import { vertexAccessToken } from "../../core/providers/vertex_auth.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const MODEL = "imagen-4.0-generate-001";

async function predict(model: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = imagenPredict(model, JSON.stringify(body));
  return { status: response.status, body: await response.json() };
}

function pngShape(b64: string): [number, number] {
  const bytes = Uint8Array.fromBase64(b64);
  assertEquals([...bytes.slice(1, 4)], [80, 78, 71]);
  const view = new DataView(bytes.buffer);
  return [view.getUint32(16), view.getUint32(20)];
}

Deno.test("vertex simulator imagen: sampleCount real PNGs of the aspect ratio's shape", async () => {
  const answer = await predict(MODEL, {
    instances: [{ prompt: "a tower" }],
    parameters: { sampleCount: 3, aspectRatio: "9:16", outputOptions: { mimeType: "image/png" } },
  });
  assertEquals(answer.status, 200);
  const predictions = answer.body.predictions;
  assertEquals(predictions.length, 3);
  assertEquals(predictions.map((p: Json) => p.mimeType), Array(3).fill("image/png"));
  assertEquals(
    predictions.map((p: Json) => pngShape(p.bytesBase64Encoded)),
    Array(3).fill([9, 16]),
  );
  assertEquals(new Set(predictions.map((p: Json) => p.bytesBase64Encoded)).size, 3);
  const square = await predict("imagen-3.0-generate-002", { instances: [{ prompt: "a" }] });
  assertEquals(square.body.predictions.length, 4, "sampleCount defaults to 4");
  assertEquals(pngShape(square.body.predictions[0].bytesBase64Encoded), [8, 8]);
});

Deno.test("vertex simulator imagen: refuses what Vertex refuses", async () => {
  const one = { prompt: "a" };
  const cases: Array<[string, string, unknown]> = [
    ["no instances", MODEL, {}],
    ["two instances", MODEL, { instances: [one, one] }],
    ["unknown top field", MODEL, { instances: [one], model: MODEL }],
    ["an edit's image", MODEL, { instances: [{ prompt: "a", image: { bytesBase64Encoded: "" } }] }],
    ["empty prompt", MODEL, { instances: [{ prompt: " " }] }],
    ["sampleCount 0", MODEL, { instances: [one], parameters: { sampleCount: 0 } }],
    ["sampleCount 5", MODEL, { instances: [one], parameters: { sampleCount: 5 } }],
    ["sampleCount 1.5", MODEL, { instances: [one], parameters: { sampleCount: 1.5 } }],
    ["ratio 3:2", MODEL, { instances: [one], parameters: { aspectRatio: "3:2" } }],
    ["unknown parameter", MODEL, { instances: [one], parameters: { size: "1024x1024" } }],
    ["2K on a fast model", "imagen-4.0-fast-generate-001", {
      instances: [one],
      parameters: { sampleImageSize: "2K" },
    }],
    ["4K", MODEL, { instances: [one], parameters: { sampleImageSize: "4K" } }],
    ["webp", MODEL, {
      instances: [one],
      parameters: { outputOptions: { mimeType: "image/webp" } },
    }],
    ["unknown output option", MODEL, {
      instances: [one],
      parameters: { outputOptions: { format: "png" } },
    }],
  ];
  for (const [name, model, body] of cases) {
    const answer = await predict(model, body);
    assertEquals(answer.status, 400, name);
    assertEquals(answer.body.error.status, "INVALID_ARGUMENT", name);
  }
  const twoK = await predict(MODEL, { instances: [one], parameters: { sampleImageSize: "2K" } });
  assertEquals(twoK.status, 200);
});

Deno.test("vertex simulator imagen: a bearer token is needed, and only :predict is served", async () => {
  await using sim = await startVertexUpstream();
  const base = `${sim.baseUrl}/v1/projects/${sim.project}/locations/${sim.location}` +
    `/publishers/google/models/${MODEL}`;
  const post = (method: string, authorization: string, body: unknown) =>
    fetch(`${base}:${method}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization },
      body: JSON.stringify(body),
    });
  const forged = await post("predict", "Bearer ya29.forged", { instances: [{ prompt: "a" }] });
  assertEquals(forged.status, 401);
  assertOk((await forged.json()).error.status === "UNAUTHENTICATED");

  // A real token, fetched as the gateway fetches one for the account's key.
  const { token } = await vertexAccessToken(sim.account.json);
  const drawn = await post("predict", `Bearer ${token}`, {
    instances: [{ prompt: "a" }],
    parameters: { sampleCount: 1 },
  });
  assertEquals(drawn.status, 200);
  assertEquals((await drawn.json()).predictions.length, 1);
  const generate = await post("generateContent", `Bearer ${token}`, {
    contents: [{ role: "user", parts: [{ text: "a" }] }],
  });
  assertEquals(generate.status, 400);
  await generate.body?.cancel();
});
