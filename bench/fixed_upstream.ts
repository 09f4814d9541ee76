/** A minimal OpenAI-compatible upstream with fixed answers: the far end of every bench request. */

const CREATED = 1_700_000_000;
const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const encoder = new TextEncoder();

const COMPLETION = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: CREATED,
  model: "bench-model",
  choices: [{
    index: 0,
    message: { role: "assistant", content: "Hello there!" },
    finish_reason: "stop",
  }],
  usage: USAGE,
});

function chunk(choices: unknown[], extra: Record<string, unknown> = {}): Uint8Array {
  const body = {
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: CREATED,
    model: "bench-model",
    choices,
    ...extra,
  };
  return encoder.encode(`data: ${JSON.stringify(body)}\n\n`);
}

function delta(content: Record<string, string>, finish: string | null = null): unknown[] {
  return [{ index: 0, delta: content, finish_reason: finish }];
}

const STREAM_EVENTS: Uint8Array[] = [
  chunk(delta({ role: "assistant", content: "" })),
  chunk(delta({ content: "Hello" })),
  chunk(delta({ content: " there" })),
  chunk(delta({ content: "!" })),
  chunk(delta({}, "stop")),
];
/** As OpenAI streams when asked for usage: every chunk has `"usage":null`, the last the usage. */
const STREAM_EVENTS_WITH_USAGE: Uint8Array[] = [
  chunk(delta({ role: "assistant", content: "" }), { usage: null }),
  chunk(delta({ content: "Hello" }), { usage: null }),
  chunk(delta({ content: " there" }), { usage: null }),
  chunk(delta({ content: "!" }), { usage: null }),
  chunk(delta({}, "stop"), { usage: null }),
];
const USAGE_EVENT = chunk([], { usage: USAGE });
const DONE_EVENT = encoder.encode("data: [DONE]\n\n");

/** A held stream (`"user": "bench-hold"`): one chunk now, then one every 5 s, for 60 s. */
const HOLD_USER = "bench-hold";

function heldStream(): Response {
  let timer: ReturnType<typeof setInterval> | undefined;
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(STREAM_EVENTS[0]);
      timer = setInterval(() => {
        sent++;
        if (sent < 12) {
          controller.enqueue(chunk(delta({ content: "." })));
          return;
        }
        clearInterval(timer);
        for (const event of [...STREAM_EVENTS.slice(1), USAGE_EVENT, DONE_EVENT]) {
          controller.enqueue(event);
        }
        controller.close();
      }, 5000);
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

interface ChatBody {
  user?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

function streamResponse(includeUsage: boolean): Response {
  const events = includeUsage
    ? [...STREAM_EVENTS_WITH_USAGE, USAGE_EVENT, DONE_EVENT]
    : [...STREAM_EVENTS, DONE_EVENT];
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(events[next++]);
      if (next === events.length) controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Pause after an anthropic stream's first event: a buffering proxy would add it to TTFB. */
export const MESSAGES_GAP_MS = 20;

function messagesEvent(type: string, data: Record<string, unknown>): Uint8Array {
  return encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

/** message_start stamped with the wall-clock time it is written (for the relay measure). */
const messageStart = () =>
  messagesEvent("message_start", {
    sent_at: performance.timeOrigin + performance.now(),
    message: {
      id: "msg_bench",
      type: "message",
      role: "assistant",
      model: "bench-claude-upstream",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
const MESSAGES_REST: Uint8Array[] = [
  messagesEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  ...["Hello", " there", "!"].map((text) =>
    messagesEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text } })
  ),
  messagesEvent("content_block_stop", { index: 0 }),
  messagesEvent("message_delta", {
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 5 },
  }),
  messagesEvent("message_stop", {}),
];
const MESSAGE = JSON.stringify({
  id: "msg_bench",
  type: "message",
  role: "assistant",
  model: "bench-claude-upstream",
  content: [{ type: "text", text: "Hello there!" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5 },
});

/** Two 1,536-long vectors, as text-embedding-3-small answers the bench's two inputs. */
const VECTORS = [0, 1].map((index) =>
  Array.from({ length: 1536 }, (_, i) => Math.fround(Math.sin(i + index)))
);

function embeddingsAnswer(embedding: (vector: number[]) => number[] | string): string {
  return JSON.stringify({
    object: "list",
    data: VECTORS.map((vector, index) => ({
      object: "embedding",
      index,
      embedding: embedding(vector),
    })),
    model: "bench-embed",
    usage: { prompt_tokens: 19, total_tokens: 19 },
  });
}

const EMBEDDINGS = embeddingsAnswer((vector) => vector);
const EMBEDDINGS_BASE64 = embeddingsAnswer((vector) =>
  new Uint8Array(new Float32Array(vector).buffer).toBase64()
);

/** The first event at once, the rest after MESSAGES_GAP_MS. */
function messagesStream(): Response {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(messageStart());
      await new Promise((resolve) => setTimeout(resolve, MESSAGES_GAP_MS));
      for (const event of MESSAGES_REST) controller.enqueue(event);
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

function errorResponse(status: number, message: string): Response {
  return Response.json({ error: { message, type: "invalid_request_error" } }, { status });
}

/**
 * Answers POST /v1/chat/completions with a fixed completion or a fixed SSE stream, and
 * POST /v1/embeddings with fixed vectors.
 */
export async function handle(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (request.method === "POST" && pathname === "/v1/messages") {
    const body = await request.json().catch(() => ({}));
    if (body.stream === true) return messagesStream();
    return new Response(MESSAGE, { headers: { "content-type": "application/json" } });
  }
  if (request.method === "POST" && pathname === "/v1/embeddings") {
    const base64 = (await request.json().catch(() => ({}))).encoding_format === "base64";
    return new Response(base64 ? EMBEDDINGS_BASE64 : EMBEDDINGS, {
      headers: { "content-type": "application/json" },
    });
  }
  if (request.method !== "POST" || pathname !== "/v1/chat/completions") {
    return errorResponse(404, `No route for ${request.method} ${pathname}`);
  }
  if (!/^Bearer\s+\S+$/i.test(request.headers.get("authorization") ?? "")) {
    return errorResponse(401, "Missing bearer key");
  }
  let body: ChatBody;
  try {
    body = await request.json();
  } catch {
    return errorResponse(400, "Body is not JSON");
  }
  if (body.stream === true && body.user === HOLD_USER) return heldStream();
  if (body.stream === true) return streamResponse(body.stream_options?.include_usage === true);
  return new Response(COMPLETION, { headers: { "content-type": "application/json" } });
}

if (import.meta.main) {
  Deno.serve({
    hostname: Deno.env.get("HOST") ?? "127.0.0.1",
    port: Number(Deno.env.get("PORT") ?? "0"),
    onListen: ({ port }) => console.log(JSON.stringify({ msg: "listening", port })),
  }, handle);
}
