/**
 * A simulated ModelArk content-generation task upstream (`ark-video`), as the public API
 * documents it: `POST /api/v3/contents/generations/tasks` with `model`, a `content` array (one
 * `text` item, then `image_url` / `video_url` / `audio_url` items with their roles) and the
 * `resolution`, `ratio`, `duration` parameters, answering `{id}`; `GET …/tasks?page_size=…&
 * filter.model=…` answering `{items, total}`; `GET …/tasks/{id}` answering
 * the task with `status` queued → running → succeeded | failed (with `error`), `content.video_url`
 * and `usage`. Errors use Ark's envelope `{error: {code, message, param, type}}`.
 *
 * Like the real service it downloads every reference URL when a task is created (a URL it cannot
 * fetch is a 400), and it keeps what it fetched for the tests to compare. The course of each task
 * comes from `plan` (default: one queued poll, one running poll, then success; `statuses` scripts
 * the polls, e.g. running then queued again, as a real upstream may report). Faults in `faults`
 * apply to the next requests, one each (`slow`: a create that answers late but still makes its
 * task, as an upstream that accepted a submission whose answer the caller gave up on).
 */

export type ArkFault =
  | { on: "create" | "poll" | "list"; kind: "status"; status: number; code?: string }
  | { on: "create" | "poll" | "list"; kind: "malformed" }
  /** The create answers only after `ms` (past a caller's timeout), and makes the task anyway. */
  | { on: "create"; kind: "slow"; ms: number };

export interface ArkTaskPlan {
  queuedPolls?: number;
  runningPolls?: number;
  /**
   * The statuses of the first polls, in order, in place of `queuedPolls` then `runningPolls`
   * (e.g. running, then queued again, as a real upstream may report); then the outcome.
   */
  statuses?: Array<"queued" | "running">;
  outcome?: "succeeded" | "failed" | "expired";
  errorCode?: string;
  errorMessage?: string;
}

export interface ArkFetchedReference {
  type: string;
  role: string;
  url: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface ArkCreatedTask {
  id: string;
  body: {
    model: string;
    content: Array<Record<string, unknown>>;
    resolution?: string;
    ratio?: string;
    duration?: number;
  };
  references: ArkFetchedReference[];
  polls: number;
  plan: Required<Omit<ArkTaskPlan, "errorCode" | "errorMessage" | "statuses">> & ArkTaskPlan;
}

export interface ArkVideoUpstreamOptions {
  keys?: string[];
  /** The course of a task, from its create body. */
  plan?: (body: ArkCreatedTask["body"]) => ArkTaskPlan;
  /** Milliseconds each poll answer waits (to see polls overlap). */
  pollDelayMs?: number;
  /** The `content.video_url` of a succeeded task in place of a download (e.g. `javascript:…`). */
  resultUrl?: string;
}

export interface ArkVideoUpstream extends AsyncDisposable {
  /** Base URL as the Ark SDK takes it (ends with /api/v3). */
  baseUrl: string;
  origin: string;
  tasks: Map<string, ArkCreatedTask>;
  creates: number;
  pollRequests: number;
  /** The query of each task-list request (`GET …/tasks?page_size=…&filter.model=…`). */
  listQueries: URLSearchParams[];
  /** Most polls in flight at once. */
  maxConcurrentPolls: number;
  faults: ArkFault[];
  options: ArkVideoUpstreamOptions;
  /** Shuts the simulator down; `await using` does the same through `Symbol.asyncDispose`. */
  close(): Promise<void>;
}

const RATIOS = ["16:9", "4:3", "1:1", "3:4", "9:16", "21:9", "adaptive"];
const RESOLUTIONS = ["480p", "720p", "1080p", "2k", "4k"];
const ROLE_OF: Record<string, string> = {
  image_url: "reference_image",
  video_url: "reference_video",
  audio_url: "reference_audio",
};
const KIND_OF: Record<string, string> = {
  image_url: "image/",
  video_url: "video/",
  audio_url: "audio/",
};

function arkError(status: number, code: string, message: string, param = ""): Response {
  return Response.json({
    error: { code, message, param, type: status === 401 ? "Unauthorized" : "BadRequest" },
  }, { status });
}

/** The bytes served as every finished video (a tiny stand-in, not a real MP4). */
export const RESULT_VIDEO_BYTES = new TextEncoder().encode("simulated video bytes");

export function startArkVideoUpstream(options: ArkVideoUpstreamOptions = {}): ArkVideoUpstream {
  const keys = options.keys ?? ["ark-upstream-test"];
  let sequence = 0;
  let inFlight = 0;
  const state: ArkVideoUpstream = {
    baseUrl: "",
    origin: "",
    tasks: new Map(),
    creates: 0,
    pollRequests: 0,
    listQueries: [],
    maxConcurrentPolls: 0,
    faults: [],
    options,
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };

  const takeFault = (on: ArkFault["on"]) => {
    const index = state.faults.findIndex((fault) => fault.on === on);
    return index < 0 ? undefined : state.faults.splice(index, 1)[0];
  };

  const faultAnswer = (fault: ArkFault): Response =>
    fault.kind === "status"
      ? arkError(fault.status, fault.code ?? "InternalServiceError", "simulated fault")
      : new Response('{"id": "cgt-', { headers: { "content-type": "application/json" } });

  async function create(request: Request): Promise<Response> {
    state.creates++;
    const fault = takeFault("create");
    if (fault && fault.kind !== "slow") return faultAnswer(fault);
    // deno-lint-ignore no-explicit-any
    let body: any;
    try {
      body = await request.json();
    } catch {
      return arkError(400, "InvalidParameter", "The request body is not valid JSON");
    }
    if (fault?.kind === "slow") await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (typeof body?.model !== "string" || !body.model) {
      return arkError(400, "InvalidParameter", "model is required", "model");
    }
    if (!Array.isArray(body.content) || body.content[0]?.type !== "text") {
      return arkError(400, "InvalidParameter", "content must start with a text item", "content");
    }
    if (body.ratio !== undefined && !RATIOS.includes(body.ratio)) {
      return arkError(400, "InvalidParameter", `ratio ${body.ratio} is not supported`, "ratio");
    }
    if (body.resolution !== undefined && !RESOLUTIONS.includes(body.resolution)) {
      return arkError(400, "InvalidParameter", "resolution is not supported", "resolution");
    }
    if (
      body.duration !== undefined &&
      !(Number.isInteger(body.duration) && body.duration >= 4 && body.duration <= 15)
    ) {
      return arkError(400, "InvalidParameter", "duration must be 4 to 15", "duration");
    }
    const references: ArkFetchedReference[] = [];
    for (const item of body.content.slice(1)) {
      const type = item?.type;
      const url = item?.[type]?.url;
      if (!ROLE_OF[type] || typeof url !== "string") {
        return arkError(400, "InvalidParameter", `content item of type ${type} is malformed`);
      }
      if (item.role !== ROLE_OF[type]) {
        return arkError(400, "InvalidParameter", `role ${item.role} is not valid for ${type}`);
      }
      const fetched = await fetch(url).catch(() => null);
      const contentType = fetched?.headers.get("content-type") ?? "";
      if (!fetched?.ok || !contentType.startsWith(KIND_OF[type])) {
        await fetched?.body?.cancel();
        return arkError(400, "InvalidParameter", `the resource at ${type}.url cannot be fetched`);
      }
      references.push({
        type,
        role: item.role,
        url,
        contentType,
        bytes: new Uint8Array(await fetched.arrayBuffer()),
      });
    }
    const id = `cgt-${Date.now()}-${++sequence}`;
    const plan = options.plan?.(body) ?? {};
    state.tasks.set(id, {
      id,
      body,
      references,
      polls: 0,
      plan: {
        queuedPolls: plan.queuedPolls ?? 1,
        runningPolls: plan.runningPolls ?? 1,
        outcome: plan.outcome ?? "succeeded",
        statuses: plan.statuses,
        errorCode: plan.errorCode,
        errorMessage: plan.errorMessage,
      },
    });
    return Response.json({ id });
  }

  /** The task list, newest first, filtered by `filter.model` and paged by `page_size`. */
  function list(query: URLSearchParams): Response {
    state.listQueries.push(query);
    const fault = takeFault("list");
    if (fault) return faultAnswer(fault);
    const model = query.get("filter.model");
    const size = Number(query.get("page_size") ?? 10);
    const matching = [...state.tasks.values()].reverse()
      .filter((task) => !model || task.body.model === model);
    return Response.json({
      items: matching.slice(0, size).map((task) => ({
        id: task.id,
        model: task.body.model,
        status: "queued",
      })),
      total: matching.length,
    });
  }

  async function poll(id: string): Promise<Response> {
    state.pollRequests++;
    inFlight++;
    state.maxConcurrentPolls = Math.max(state.maxConcurrentPolls, inFlight);
    try {
      if (options.pollDelayMs) await new Promise((r) => setTimeout(r, options.pollDelayMs));
      const fault = takeFault("poll");
      if (fault) return faultAnswer(fault);
      const task = state.tasks.get(id);
      if (!task) return arkError(404, "ResourceNotFound", `task ${id} not found`);
      task.polls++;
      const { queuedPolls, runningPolls, outcome, statuses } = task.plan;
      const status = statuses
        ? statuses[task.polls - 1] ?? outcome
        : task.polls <= queuedPolls
        ? "queued"
        : task.polls <= queuedPolls + runningPolls
        ? "running"
        : outcome;
      const now = Math.floor(Date.now() / 1000);
      return Response.json({
        id,
        model: task.body.model,
        status,
        content: status === "succeeded"
          ? { video_url: options.resultUrl ?? `${state.origin}/files/${id}.mp4` }
          : undefined,
        error: status === "failed"
          ? {
            code: task.plan.errorCode ?? "OutputVideoSensitiveContentDetected",
            message: task.plan.errorMessage ?? "The output video may contain sensitive content",
          }
          : null,
        usage: status === "succeeded"
          ? { completion_tokens: 108900, total_tokens: 108900 }
          : undefined,
        created_at: now,
        updated_at: now,
        seed: 42,
        resolution: task.body.resolution ?? "720p",
        ratio: task.body.ratio ?? "16:9",
        duration: task.body.duration ?? 5,
        framespersecond: 24,
      });
    } finally {
      inFlight--;
    }
  }

  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname.startsWith("/files/")) {
      return new Response(RESULT_VIDEO_BYTES, { headers: { "content-type": "video/mp4" } });
    }
    const auth = request.headers.get("authorization") ?? "";
    if (!keys.includes(auth.replace(/^Bearer /, ""))) {
      return arkError(401, "AuthenticationError", "The API key is missing or invalid");
    }
    if (request.method === "POST" && url.pathname === "/api/v3/contents/generations/tasks") {
      return create(request);
    }
    if (request.method === "GET" && url.pathname === "/api/v3/contents/generations/tasks") {
      return list(url.searchParams);
    }
    const match = /^\/api\/v3\/contents\/generations\/tasks\/([^/]+)$/.exec(url.pathname);
    if (request.method === "GET" && match) return poll(decodeURIComponent(match[1]));
    return arkError(404, "NotFound", `no route ${request.method} ${url.pathname}`);
  });
  state.origin = `http://127.0.0.1:${server.addr.port}`;
  state.baseUrl = `${state.origin}/api/v3`;
  state.close = () => server.shutdown();
  return state;
}
