/**
 * A simulated OpenAI Moderations upstream (`POST /v1/moderations`), as strict as the real API:
 * a Bearer key, `input` a non-empty string, an array of strings, or an array of
 * `{type: "text"}` / `{type: "image_url"}` parts (images for omni-moderation models only), no
 * unknown field, a known model (default `omni-moderation-latest`, answered as its snapshot).
 * An array of strings gets one result each; a multimodal array is one input, one result. Scores
 * are deterministic: text with "kill" is violence, text with "hate" is hate, an image whose URL
 * has "violent" is violence (applied to `image`). Errors are OpenAI's envelope; faults on request.
 */

export type ModerationFault =
  | { kind: "status"; status: number; message?: string }
  | { kind: "hang" }
  | { kind: "malformed" };

export interface ModerationRecordedRequest {
  authorization: string | null;
  body: Record<string, unknown>;
}

export interface ModerationUpstream extends AsyncDisposable {
  /** An OpenAI base URL (`…/v1`). */
  baseUrl: string;
  requests: ModerationRecordedRequest[];
  faults: ModerationFault[];
  close(): Promise<void>;
}

/** Each model the simulator serves, with the snapshot its answers name. */
const MODELS: Record<string, { snapshot: string; images: boolean }> = {
  "omni-moderation-latest": { snapshot: "omni-moderation-2024-09-26", images: true },
  "omni-moderation-2024-09-26": { snapshot: "omni-moderation-2024-09-26", images: true },
  "text-moderation-latest": { snapshot: "text-moderation-007", images: false },
  "text-moderation-stable": { snapshot: "text-moderation-007", images: false },
};

export const MODERATION_CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;

/** The categories omni-moderation also reads in images. */
const IMAGE_CATEGORIES = new Set([
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "violence",
  "violence/graphic",
]);

function openAIError(status: number, message: string, param: string | null = null) {
  return new Response(
    JSON.stringify({
      error: { message, type: "invalid_request_error", param, code: null },
    }),
    { status, headers: { "content-type": "application/json" } },
  );
}

type Part = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** One result for the texts and images of one input. */
function resultOf(texts: string[], images: string[], omni: boolean) {
  const text = texts.join(" ").toLowerCase();
  const flaggedText = new Set<string>();
  if (text.includes("kill")) flaggedText.add("violence");
  if (text.includes("hate")) flaggedText.add("hate");
  const flaggedImage = images.some((url) => url.includes("violent"));
  const categories: Record<string, boolean> = {};
  const scores: Record<string, number> = {};
  const applied: Record<string, string[]> = {};
  for (const category of MODERATION_CATEGORIES) {
    const byImage = category === "violence" && flaggedImage;
    categories[category] = flaggedText.has(category) || byImage;
    scores[category] = categories[category] ? 0.91 : 0.000012;
    const types: string[] = [];
    if (texts.length) types.push("text");
    if (images.length && IMAGE_CATEGORIES.has(category)) types.push("image");
    applied[category] = types;
  }
  return {
    flagged: Object.values(categories).some(Boolean),
    categories,
    category_scores: scores,
    ...(omni ? { category_applied_input_types: applied } : {}),
  };
}

export function startModerationUpstream(
  options: { keys?: string[]; faults?: ModerationFault[] } = {},
): ModerationUpstream {
  const keys = options.keys ?? ["sk-upstream-test"];
  const requests: ModerationRecordedRequest[] = [];
  const faults: ModerationFault[] = [...options.faults ?? []];
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/moderations") {
        return openAIError(404, `Invalid URL (${request.method} ${path})`);
      }
      const authorization = request.headers.get("authorization");
      let body: Record<string, unknown>;
      try {
        body = await request.json();
      } catch {
        return openAIError(400, "We could not parse the JSON body of your request.");
      }
      requests.push({ authorization, body });
      if (!keys.includes((authorization ?? "").replace(/^Bearer /, ""))) {
        return openAIError(401, "Incorrect API key provided.");
      }
      const fault = faults.shift();
      if (fault?.kind === "status") {
        return openAIError(fault.status, fault.message ?? `simulated ${fault.status}`);
      }
      if (fault?.kind === "hang") {
        await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
        return new Response(null, { status: 499 });
      }
      if (fault?.kind === "malformed") {
        return new Response('{"id": "modr-1", "results": [', {
          headers: { "content-type": "application/json" },
        });
      }
      const unknown = Object.keys(body).find((field) => field !== "input" && field !== "model");
      if (unknown) return openAIError(400, `Unrecognized request argument supplied: ${unknown}`);
      const modelName = body.model ?? "omni-moderation-latest";
      const model = MODELS[String(modelName)];
      if (!model) {
        return openAIError(404, `The model '${modelName}' does not exist`, "model");
      }
      const input = body.input;
      const inputs: Array<{ texts: string[]; images: string[] }> = [];
      if (typeof input === "string") inputs.push({ texts: [input], images: [] });
      else if (Array.isArray(input) && input.length && input.every((x) => typeof x === "string")) {
        for (const text of input) inputs.push({ texts: [text], images: [] });
      } else if (Array.isArray(input) && input.length) {
        const parts = input as Part[];
        const texts: string[] = [];
        const images: string[] = [];
        for (const part of parts) {
          if (part?.type === "text" && typeof part.text === "string") texts.push(part.text);
          else if (part?.type === "image_url" && typeof part.image_url?.url === "string") {
            images.push(part.image_url.url);
          } else return openAIError(400, "Invalid value for 'input'.", "input");
        }
        if (images.length && !model.images) {
          return openAIError(400, `The model '${modelName}' does not accept images.`, "input");
        }
        inputs.push({ texts, images });
      } else {
        return openAIError(400, "Invalid value for 'input'.", "input");
      }
      return new Response(
        JSON.stringify({
          id: `modr-${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
          model: model.snapshot,
          results: inputs.map(({ texts, images }) => resultOf(texts, images, model.images)),
        }),
        { headers: { "content-type": "application/json" } },
      );
    },
  );
  const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  const close = () => server.shutdown();
  return { baseUrl, requests, faults, close, [Symbol.asyncDispose]: close };
}
