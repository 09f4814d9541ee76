/**
 * A simulated Veo on the Gemini API, as strict as the real one: `POST /v1beta/models/{model}:
 * predictLongRunning` takes `{instances: [{prompt, image?: {bytesBase64Encoded, mimeType}}],
 * parameters: {aspectRatio?, durationSeconds?, …}}` and nothing else, and answers an operation
 * `{name}`; `GET /v1beta/{name}` answers it not done, then done with
 * `response.generateVideoResponse.generatedSamples[0].video.uri` (or an `error`, or only RAI
 * filter reasons); the URI (`/v1beta/files/{id}:download?alt=media`) serves the MP4 only with
 * the key (`x-goog-api-key` or `?key=`; 403 without). `GET /v1beta/models/{model}` answers the
 * model. Errors use Google's envelope `{error: {code, message, status}}`.
 */

import { imageTypeOf, simulatedMp4 } from "./video_bytes.ts";

export interface VeoPlan {
  /** Polls answered `done: false` before the end. */
  pendingPolls?: number;
  outcome?: "succeeded" | "failed" | "filtered";
}

export interface VeoOperation {
  name: string;
  model: string;
  // deno-lint-ignore no-explicit-any
  body: any;
  polls: number;
  plan: Required<VeoPlan>;
  fileId: string;
  bytes: Uint8Array;
}

export type VeoFault = { on: "create" | "poll" | "download"; status: number };

export interface VeoUpstream extends AsyncDisposable {
  /** Base URL as a `veo` channel takes it (ends with /v1beta). */
  baseUrl: string;
  operations: Map<string, VeoOperation>;
  creates: number;
  downloads: number;
  refusedDownloads: number;
  faults: VeoFault[];
  close(): Promise<void>;
}

const PARAMETERS = new Set([
  "aspectRatio",
  "durationSeconds",
  "negativePrompt",
  "personGeneration",
  "resolution",
  "sampleCount",
  "seed",
]);

function googleError(code: number, status: string, message: string): Response {
  return Response.json({ error: { code, message, status } }, { status: code });
}

const invalid = (message: string) => googleError(400, "INVALID_ARGUMENT", message);

/** What is wrong with a predictLongRunning body, or null. */
// deno-lint-ignore no-explicit-any
function bodyProblem(model: string, body: any): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return "body is not an object";
  }
  for (const name of Object.keys(body)) {
    if (name !== "instances" && name !== "parameters") {
      return `Invalid JSON payload received. Unknown name "${name}": Cannot find field.`;
    }
  }
  if (!Array.isArray(body.instances) || body.instances.length !== 1) {
    return "instances must hold exactly one instance";
  }
  const instance = body.instances[0];
  for (const name of Object.keys(instance ?? {})) {
    if (name !== "prompt" && name !== "image") {
      return `Invalid JSON payload received. Unknown name "${name}" at 'instances[0]'.`;
    }
  }
  if (typeof instance.prompt !== "string" || !instance.prompt) return "prompt is required";
  if (instance.image !== undefined) {
    const { bytesBase64Encoded, mimeType, ...rest } = instance.image ?? {};
    if (Object.keys(rest).length) return `Unknown name "${Object.keys(rest)[0]}" in image`;
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.fromBase64(String(bytesBase64Encoded));
    } catch {
      return "image.bytesBase64Encoded is not base64";
    }
    const type = imageTypeOf(bytes);
    if (!type || type !== mimeType) return `image.mimeType ${mimeType} does not match the bytes`;
  }
  const parameters = body.parameters ?? {};
  for (const name of Object.keys(parameters)) {
    if (!PARAMETERS.has(name)) {
      return `Invalid JSON payload received. Unknown name "${name}" at 'parameters'.`;
    }
  }
  if (
    parameters.aspectRatio !== undefined && !["16:9", "9:16"].includes(parameters.aspectRatio)
  ) {
    return `aspectRatio ${parameters.aspectRatio} is not supported`;
  }
  const seconds = model.startsWith("veo-2") ? [5, 6, 7, 8] : [4, 6, 8];
  if (
    parameters.durationSeconds !== undefined && !seconds.includes(parameters.durationSeconds)
  ) {
    return `durationSeconds must be one of ${seconds.join(", ")}`;
  }
  return null;
}

export function startVeoUpstream(
  options: { keys?: string[]; plan?: (body: unknown) => VeoPlan; uriOrigin?: string } = {},
): VeoUpstream {
  const keys = options.keys ?? ["veo-upstream-test"];
  let sequence = 0;
  let origin = "";
  const state: VeoUpstream = {
    baseUrl: "",
    operations: new Map(),
    creates: 0,
    downloads: 0,
    refusedDownloads: 0,
    faults: [],
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };
  const takeFault = (on: VeoFault["on"]) => {
    const index = state.faults.findIndex((fault) => fault.on === on);
    return index < 0 ? undefined : state.faults.splice(index, 1)[0];
  };

  function view(operation: VeoOperation): Record<string, unknown> {
    if (operation.polls <= operation.plan.pendingPolls) {
      return { name: operation.name, metadata: {} };
    }
    switch (operation.plan.outcome) {
      case "failed":
        return {
          name: operation.name,
          done: true,
          error: { code: 3, message: "The prompt could not be processed" },
        };
      case "filtered":
        return {
          name: operation.name,
          done: true,
          response: {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta." +
              "PredictLongRunningResponse",
            generateVideoResponse: {
              raiMediaFilteredCount: 1,
              raiMediaFilteredReasons: ["The video was filtered by the safety settings"],
            },
          },
        };
      default:
        return {
          name: operation.name,
          done: true,
          response: {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta." +
              "PredictLongRunningResponse",
            generateVideoResponse: {
              generatedSamples: [{
                video: {
                  uri: `${options.uriOrigin ?? origin}/v1beta/files/${operation.fileId}:download` +
                    "?alt=media",
                },
              }],
            },
          },
        };
    }
  }

  async function create(model: string, request: Request): Promise<Response> {
    state.creates++;
    const fault = takeFault("create");
    if (fault) return googleError(fault.status, "UNAVAILABLE", "simulated fault");
    if (!/^application\/json/.test(request.headers.get("content-type") ?? "")) {
      return invalid("The request must be JSON");
    }
    let body;
    try {
      body = await request.json();
    } catch {
      return invalid("Invalid JSON payload received.");
    }
    const problem = bodyProblem(model, body);
    if (problem) return invalid(problem);
    const id = `op${++sequence}`;
    const plan = options.plan?.(body) ?? {};
    const operation: VeoOperation = {
      name: `models/${model}/operations/${id}`,
      model,
      body,
      polls: 0,
      plan: { pendingPolls: plan.pendingPolls ?? 2, outcome: plan.outcome ?? "succeeded" },
      fileId: `file${sequence}`,
      bytes: simulatedMp4(100 + sequence),
    };
    state.operations.set(operation.name, operation);
    return Response.json({ name: operation.name });
  }

  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const url = new URL(request.url);
    const key = request.headers.get("x-goog-api-key") ?? url.searchParams.get("key");
    const download = /^\/v1beta\/files\/([^/:]+):download$/.exec(url.pathname);
    if (!key) {
      if (download) state.refusedDownloads++;
      return googleError(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers");
    }
    if (!keys.includes(key)) {
      if (download) state.refusedDownloads++;
      return invalid("API key not valid. Please pass a valid API key.");
    }
    const predict = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(url.pathname);
    if (predict && request.method === "POST") return create(predict[1], request);
    if (download && request.method === "GET") {
      const fault = takeFault("download");
      if (fault) return googleError(fault.status, "UNAVAILABLE", "simulated fault");
      const operation = [...state.operations.values()].find((op) => op.fileId === download[1]);
      if (!operation) return googleError(404, "NOT_FOUND", "File not found");
      state.downloads++;
      return new Response(operation.bytes as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": "video/mp4" },
      });
    }
    const poll = /^\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/.exec(url.pathname);
    if (poll && request.method === "GET") {
      const fault = takeFault("poll");
      if (fault) return googleError(fault.status, "UNAVAILABLE", "simulated fault");
      const operation = state.operations.get(poll[1]);
      if (!operation) return googleError(404, "NOT_FOUND", "Operation not found");
      operation.polls++;
      return Response.json(view(operation));
    }
    const model = /^\/v1beta\/models\/([^/:]+)$/.exec(url.pathname);
    if (model && request.method === "GET") {
      return Response.json({
        name: `models/${model[1]}`,
        supportedGenerationMethods: ["predictLongRunning"],
      });
    }
    return googleError(404, "NOT_FOUND", `Unknown path ${url.pathname}`);
  });
  origin = `http://127.0.0.1:${server.addr.port}`;
  state.baseUrl = `${origin}/v1beta`;
  state.close = () => server.shutdown();
  return state;
}
