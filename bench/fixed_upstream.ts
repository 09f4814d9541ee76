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
const USAGE_EVENT = chunk([], { usage: USAGE });
const DONE_EVENT = encoder.encode("data: [DONE]\n\n");

interface ChatBody {
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

function streamResponse(includeUsage: boolean): Response {
  const events = includeUsage
    ? [...STREAM_EVENTS, USAGE_EVENT, DONE_EVENT]
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

function errorResponse(status: number, message: string): Response {
  return Response.json({ error: { message, type: "invalid_request_error" } }, { status });
}

/** Answers POST /v1/chat/completions with a fixed completion or a fixed SSE stream. */
export async function handle(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
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
