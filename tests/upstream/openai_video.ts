/**
 * A simulated OpenAI Videos API (Sora), as strict as the real one: `POST /v1/videos` only as
 * multipart with `model`, `prompt`, `seconds` ("4", "8", "12"), `size` and one
 * `input_reference` image (any other field is refused); `GET /v1/videos/{id}` answers the video
 * object, queued → in_progress (with `progress`) → completed | failed (with `error`) over the
 * polls; `GET /v1/videos/{id}/content` answers the MP4 of a completed video, and only with the
 * key (401 without); `GET /v1/videos?limit=` lists videos. Errors use OpenAI's envelope. Faults
 * in `faults` apply to the next request of their kind, one each.
 */

import { imageTypeOf, simulatedMp4 } from "./video_bytes.ts";

export interface SoraPlan {
  queuedPolls?: number;
  runningPolls?: number;
  outcome?: "completed" | "failed";
}

export interface SoraVideo {
  id: string;
  fields: Record<string, string>;
  /** The `input_reference` file, when one came. */
  reference: { bytes: Uint8Array; type: string; filename: string } | null;
  polls: number;
  plan: Required<SoraPlan>;
  /** The MP4 served by `/content` once completed. */
  bytes: Uint8Array;
}

export type SoraFault = { on: "create" | "poll" | "content"; status: number };

export interface OpenAIVideoUpstream extends AsyncDisposable {
  /** Base URL as the OpenAI SDK takes it (ends with /v1). */
  baseUrl: string;
  videos: Map<string, SoraVideo>;
  creates: number;
  /** `/content` requests that were answered with the video. */
  downloads: number;
  /** `/content` requests refused for want of the key. */
  refusedDownloads: number;
  faults: SoraFault[];
  close(): Promise<void>;
}

const FIELDS = new Set(["model", "prompt", "seconds", "size", "input_reference"]);
const SECONDS = ["4", "8", "12"];
const SIZES = ["720x1280", "1280x720", "1024x1792", "1792x1024"];

function openAIError(status: number, message: string, param: string | null = null): Response {
  const type = status === 401 ? "invalid_request_error" : "invalid_request_error";
  return Response.json({ error: { message, type, param, code: null } }, { status });
}

export function startOpenAIVideoUpstream(
  options: { keys?: string[]; plan?: (fields: Record<string, string>) => SoraPlan } = {},
): OpenAIVideoUpstream {
  const keys = options.keys ?? ["sora-upstream-test"];
  let sequence = 0;
  const state: OpenAIVideoUpstream = {
    baseUrl: "",
    videos: new Map(),
    creates: 0,
    downloads: 0,
    refusedDownloads: 0,
    faults: [],
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };
  const takeFault = (on: SoraFault["on"]) => {
    const index = state.faults.findIndex((fault) => fault.on === on);
    return index < 0 ? undefined : state.faults.splice(index, 1)[0];
  };

  function view(video: SoraVideo): Record<string, unknown> {
    const { queuedPolls, runningPolls, outcome } = video.plan;
    const status = video.polls <= queuedPolls
      ? "queued"
      : video.polls <= queuedPolls + runningPolls
      ? "in_progress"
      : outcome;
    const progress = status === "queued"
      ? 0
      : status === "in_progress"
      ? Math.round(100 * (video.polls - queuedPolls) / (runningPolls + 1))
      : 100;
    return {
      id: video.id,
      object: "video",
      model: video.fields.model,
      status,
      progress,
      created_at: 1764347090,
      seconds: video.fields.seconds ?? "4",
      size: video.fields.size ?? "720x1280",
      error: status === "failed"
        ? { code: "moderation_blocked", message: "The video was blocked by moderation" }
        : null,
    };
  }

  async function create(request: Request): Promise<Response> {
    state.creates++;
    const fault = takeFault("create");
    if (fault) return openAIError(fault.status, "simulated fault");
    if (!/^multipart\/form-data/.test(request.headers.get("content-type") ?? "")) {
      return openAIError(400, "The request must be multipart/form-data");
    }
    const form = await request.formData();
    const fields: Record<string, string> = {};
    let reference: SoraVideo["reference"] = null;
    for (const [name, value] of form.entries()) {
      if (!FIELDS.has(name)) return openAIError(400, `Unknown parameter: '${name}'.`, name);
      if (typeof value === "string") {
        if (name === "input_reference") {
          return openAIError(400, "input_reference must be a file", name);
        }
        fields[name] = value;
        continue;
      }
      if (name !== "input_reference" || reference) {
        return openAIError(400, `Unexpected file in '${name}'.`, name);
      }
      const bytes = new Uint8Array(await value.arrayBuffer());
      const type = imageTypeOf(bytes);
      if (!type) return openAIError(400, "input_reference must be a JPEG, PNG or WebP image", name);
      reference = { bytes, type, filename: value.name };
    }
    if (!fields.model) return openAIError(400, "Missing required parameter: 'model'.", "model");
    if (!fields.prompt) return openAIError(400, "Missing required parameter: 'prompt'.", "prompt");
    if (fields.seconds !== undefined && !SECONDS.includes(fields.seconds)) {
      return openAIError(400, `Invalid value: '${fields.seconds}'.`, "seconds");
    }
    if (fields.size !== undefined && !SIZES.includes(fields.size)) {
      return openAIError(400, `Invalid value: '${fields.size}'.`, "size");
    }
    const id = `video_${(++sequence).toString().padStart(6, "0")}`;
    const plan = options.plan?.(fields) ?? {};
    const video: SoraVideo = {
      id,
      fields,
      reference,
      polls: 0,
      plan: {
        queuedPolls: plan.queuedPolls ?? 1,
        runningPolls: plan.runningPolls ?? 1,
        outcome: plan.outcome ?? "completed",
      },
      bytes: simulatedMp4(sequence),
    };
    state.videos.set(id, video);
    return Response.json(view(video));
  }

  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const url = new URL(request.url);
    const key = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    const content = /^\/v1\/videos\/([^/]+)\/content$/.exec(url.pathname);
    if (!key || !keys.includes(key)) {
      if (content) state.refusedDownloads++;
      return openAIError(401, "Incorrect API key provided.");
    }
    if (url.pathname === "/v1/videos" && request.method === "POST") return create(request);
    if (url.pathname === "/v1/videos" && request.method === "GET") {
      const limit = Number(url.searchParams.get("limit") ?? 20);
      const data = [...state.videos.values()].slice(0, limit).map(view);
      return Response.json({ object: "list", data, has_more: false });
    }
    if (content && request.method === "GET") {
      const fault = takeFault("content");
      if (fault) return openAIError(fault.status, "simulated fault");
      const video = state.videos.get(content[1]);
      if (!video) return openAIError(404, "Video not found");
      if (view(video).status !== "completed") {
        return openAIError(404, "The video is not ready");
      }
      state.downloads++;
      return new Response(video.bytes as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": "video/mp4" },
      });
    }
    const poll = /^\/v1\/videos\/([^/]+)$/.exec(url.pathname);
    if (poll && request.method === "GET") {
      const fault = takeFault("poll");
      if (fault) return openAIError(fault.status, "simulated fault");
      const video = state.videos.get(poll[1]);
      if (!video) return openAIError(404, "Video not found");
      video.polls++;
      return Response.json(view(video));
    }
    return openAIError(404, `Unknown path ${url.pathname}`);
  });
  state.baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
  state.close = () => server.shutdown();
  return state;
}
