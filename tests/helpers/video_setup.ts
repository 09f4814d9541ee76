/** A gateway whose video models are served by a simulated `ark-video` upstream. */

import { postJson, startTestGateway, type TestGateway } from "./gateway.ts";
import {
  type ArkVideoUpstream,
  type ArkVideoUpstreamOptions,
  startArkVideoUpstream,
} from "../upstream/ark_video.ts";

/** Units per billed second of vid-2 and the fixed price of vid-2-cheap in these tests. */
export const PER_SECOND = 100_000;
export const PER_TASK = 500_000;
export const ARK_MODEL = "seedance-sim";

/**
 * Fast polling for tests: the worker looks every 50 ms, upstream polls 20–100 ms apart. The
 * gateway reads durations with ffprobe where the test run has one (FFPROBE_PATH, else on PATH),
 * else in process: the amounts are the same either way.
 */
export const FAST_VIDEO_ENV = {
  GATEWAY_TASK_POLL_MS: "50",
  GATEWAY_VIDEO_POLL_MIN_MS: "20",
  GATEWAY_VIDEO_POLL_MAX_MS: "100",
  FFPROBE_PATH: Deno.env.get("FFPROBE_PATH") || "ffprobe",
};

export type VideoFile = { field: string; bytes: Uint8Array; filename?: string; type?: string };

export interface VideoSetup extends AsyncDisposable {
  gw: TestGateway;
  ark: ArkVideoUpstream;
  keyId: string;
  key: string;
  submit(
    fields: Record<string, string>,
    files?: VideoFile[],
    headers?: Record<string, string>,
  ): Promise<Response>;
  getTask(id: string, key?: string): Promise<{ status: number; body: TaskAnswer }>;
  waitForTask(id: string): Promise<TaskAnswer["data"]>;
  /** Shuts everything down; `await using` does the same. */
  close(): Promise<void>;
}

export interface TaskAnswer {
  code: string;
  data: {
    task_id: string;
    status: string;
    progress: string;
    result_url: string | null;
    data: { video_url: string | null };
    fail_reason: string | null;
    billed_seconds: number | null;
    cost_units: number | null;
  };
  error?: { message: string; code: string; param?: string };
}

export function videoForm(fields: Record<string, string>, files: VideoFile[] = []): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) {
    form.append(
      file.field,
      new Blob([file.bytes as Uint8Array<ArrayBuffer>], {
        type: file.type ?? "application/octet-stream",
      }),
      file.filename ?? file.field,
    );
  }
  return form;
}

/** Client side of the video API against any gateway URL. */
export function videoClient(url: string, key: string) {
  const getTask = async (id: string, asKey = key) => {
    const response = await fetch(`${url}/v1/video/generations/${id}`, {
      headers: { authorization: `Bearer ${asKey}` },
    });
    return { status: response.status, body: await response.json() as TaskAnswer };
  };
  return {
    submit: (
      fields: Record<string, string>,
      files: VideoFile[] = [],
      headers: Record<string, string> = {},
    ) => postJson({ url }, "/v1/video/generations", key, videoForm(fields, files), headers),
    getTask,
    async waitForTask(id: string) {
      // A bound against a hang, not a timing check: a loaded machine (a PostgreSQL store polled
      // by two processes, thirty tasks at once) may take long.
      for (let i = 0; i < 4_800; i++) {
        const { body } = await getTask(id);
        if (body.data?.status === "SUCCESS" || body.data?.status === "FAILURE") return body.data;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`video task ${id} did not finish`);
    },
  };
}

export async function setupVideo(options: {
  balance?: number;
  env?: Record<string, string>;
  ark?: ArkVideoUpstreamOptions;
  channel?: Record<string, unknown>;
  cheapPrice?: Record<string, unknown>;
} = {}): Promise<VideoSetup> {
  const ark = startArkVideoUpstream(options.ark);
  const gw = await startTestGateway({ ...FAST_VIDEO_ENV, ...options.env });
  for (const model of ["vid-2", "vid-2-480p", "vid-2-1080p", "vid-2-4k"]) {
    await gw.putModel(model, { kind: "video", price: { per_second: PER_SECOND } });
  }
  await gw.putModel("vid-2-cheap", {
    kind: "video",
    price: options.cheapPrice ?? { per_task: PER_TASK },
  });
  await gw.addChannel({
    name: "ark",
    type: "ark-video",
    base_url: ark.baseUrl,
    keys: ["ark-upstream-test"],
    models: ["vid-2", "vid-2-480p", "vid-2-1080p", "vid-2-4k", "vid-2-cheap"],
    model_map: { "vid-2": ARK_MODEL },
    ...options.channel,
  });
  const { id, key } = await gw.createKey({ balance: options.balance ?? 100_000_000 });
  const close = async () => {
    await gw.close();
    await ark.close();
  };
  return {
    gw,
    ark,
    keyId: id,
    key,
    ...videoClient(gw.url, key),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The key's ledger entry types other than credits. */
export async function moneyMoves(s: VideoSetup): Promise<Array<[string, number]>> {
  const entries = await s.gw.ledger(s.keyId);
  return entries.filter((entry) => entry.type !== "credit").map((entry) => [
    entry.type,
    entry.amount,
  ]);
}

/** Admin calls against a gateway process. */
export function adminOf(url: string, token: string) {
  // deno-lint-ignore no-explicit-any
  return (method: string, path: string, body?: unknown): Promise<any> =>
    fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((response) => response.json());
}

/** Sets up vid-2 on `arkBaseUrl` and a funded key in a gateway process. */
export async function provisionVideo(
  admin: ReturnType<typeof adminOf>,
  arkBaseUrl: string,
): Promise<{ keyId: string; key: string }> {
  await admin("PUT", "/admin/models/vid-2", { kind: "video", price: { per_second: PER_SECOND } });
  await admin("POST", "/admin/channels", {
    name: "ark",
    type: "ark-video",
    base_url: arkBaseUrl,
    keys: ["ark-upstream-test"],
    models: ["vid-2"],
  });
  const { id, key } = await admin("POST", "/admin/keys", { name: "k", balance: 100_000_000 });
  return { keyId: id, key };
}
