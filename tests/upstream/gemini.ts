/**
 * A simulated Gemini API upstream (`generateContent` / `streamGenerateContent` / `countTokens`). It answers like the real API: image parts as `inlineData` (a short text part first when
 * TEXT is among the response modalities), `usageMetadata` with per-modality details, errors in
 * Google's envelope, SSE as bare `data:` blocks without a terminator. It can misbehave: error
 * statuses, a hang, malformed JSON, a refusal to draw (text only), a blocked prompt. Text
 * answers sign thoughts and, as Gemini 3 does, the first function call of a turn with a
 * `thoughtSignature`; a replayed part carrying a signature the simulator did not give that part
 * (other than Google's documented skip value) is refused, as the real API refuses it.
 *
 * Answers are built as an `AnswerPlan` (one function per answer kind) and rendered either whole
 * (generateContent) or as stream blocks (streamGenerateContent), so new kinds — richer text,
 * function calls — only need a new plan function.
 *
 * Images are real, distinct 8x8 PNGs; an edit (input images present) gets other colours than a
 * plain generation with the same prompt. Every image served is kept in `images` by id.
 */

import { solidPng } from "../helpers/png_fixtures.ts";
import { type ImagePayload, payloadBytes, simulatedImageColor } from "./openai_images.ts";
import {
  frameStream,
  IMAGE_INPUT_TOKENS,
  script,
  type ScriptInput,
  simulatorOnError,
  type StreamFault,
} from "./text_script.ts";
import { type ListedModel, modelListAnswer } from "./model_lists.ts";

export type GeminiFault =
  | { kind: "status"; status: number; message?: string; retryAfter?: string; retryDelay?: string }
  /** Never answers; the request ends when the client aborts. */
  | { kind: "hang" }
  /** 200 with truncated JSON (or a truncated SSE block when streaming). */
  | { kind: "malformed" }
  /** The model declines to draw: a candidate with only a text part, finishReason STOP. */
  | { kind: "no_image" }
  /** The prompt is blocked: `promptFeedback.blockReason` "SAFETY" and no candidates. */
  | { kind: "blocked" }
  /** Text streams: an error block, or a dropped connection, in place of block `afterFrames`. */
  | StreamFault;

export interface GeminiRecordedRequest {
  path: string;
  /** From the x-goog-api-key header, else the ?key= query parameter. */
  apiKey: string | null;
  model: string;
  method: "generateContent" | "streamGenerateContent" | "countTokens";
  body: Record<string, unknown>;
}

export interface GeminiUpstreamOptions {
  /** What its model list (GET /v1beta/models) answers; see model_lists.ts. */
  listedModels?: ListedModel[];
  /** The largest page of the model list (below the API's own), to test paging. */
  listedPageSize?: number;
  /** Upstream keys accepted; others get 400 "API key not valid". Default ["gemini-upstream-test"]. */
  keys?: string[];
  /**
   * Put a short text part before the image part(s). Default true. As with the real models, the
   * text part only appears when "TEXT" is among `responseModalities` (["IMAGE"] alone: image only).
   */
  textPartFirst?: boolean;
  /** Milliseconds to wait before answering (or failing); ends early if the client goes away. */
  delayMs?: number;
  /** Image parts per image answer. Default 1. */
  imagesPerAnswer?: number;
  /** Cached prompt tokens reported (`cachedContentTokenCount`) on text answers. */
  cachedTokens?: number;
  /**
   * What the image parts really are: real PNGs (default), or an HTML page or an SVG with a
   * script, still labelled `mimeType: "image/png"`.
   */
  payload?: ImagePayload;
  /** Tools to call by name in place of the first two offered. */
  callTools?: string[];
  /** Output tokens reported beyond those written (see ScriptInput.extraOutputTokens). */
  extraOutputTokens?: number;
}

export interface GeminiUpstream extends AsyncDisposable {
  /** Origin without a version, as the @google/genai SDK's `httpOptions.baseUrl` takes it. */
  baseUrl: string;
  requests: GeminiRecordedRequest[];
  /** Faults applied to the next requests, one each, in order. */
  faults: GeminiFault[];
  /** A fault applied to every request while set. */
  fault?: GeminiFault;
  options: GeminiUpstreamOptions;
  /** Every image served, by id. */
  images: Map<string, Uint8Array>;
  /** Shuts the simulator down; `await using` does the same through `Symbol.asyncDispose`. */
  close(): Promise<void>;
}

type Part = Record<string, unknown> & {
  text?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: unknown;
};
interface Content {
  role?: string;
  parts?: Part[];
}

/** Prompt tokens counted per input image. */
export const GEMINI_INPUT_IMAGE_TOKENS = 258;
/** Output tokens per image: by `imageConfig.imageSize`, else the 1024px default (2.5 flash image). */
export const GEMINI_IMAGE_OUTPUT_TOKENS: Record<string, number> = {
  default: 1290,
  "1K": 1120,
  "2K": 1120,
  "4K": 2000,
};
export const GEMINI_IMAGE_SIZES = ["1K", "2K", "4K"];
export const GEMINI_ASPECT_RATIOS = [
  "1:1",
  "2:3",
  "3:2",
  "3:4",
  "4:3",
  "4:5",
  "5:4",
  "9:16",
  "16:9",
  "21:9",
];
const MODALITIES = ["MODALITY_UNSPECIFIED", "TEXT", "IMAGE", "AUDIO"];
export const GEMINI_IMAGE_TEXT = "Here is your image.";
export const GEMINI_REFUSAL_TEXT =
  "I can't create that image. Could you try describing something different?";

const textTokens = (text: string) => (text ? Math.max(1, Math.ceil(text.length / 4)) : 0);

/** What an answer consists of, before it is rendered whole or as stream blocks. */
export interface AnswerPlan {
  /** Part groups: one stream block per group; generateContent flattens them. */
  groups: Part[][];
  finishReason: string;
  usageMetadata: Record<string, unknown>;
  /** Set for a blocked prompt: no candidates are rendered. */
  promptFeedback?: Record<string, unknown>;
  /** Candidates rendered, each with the same parts (`candidateCount`; default 1). */
  candidates?: number;
}

/** What the simulator reads from a request to plan an answer. */
export interface RequestFacts {
  model: string;
  /** Text of the last user turn. */
  prompt: string;
  /** All text of the request (for prompt tokens). */
  allText: string;
  inputImages: number;
  modalities: string[];
  imageSize?: string;
  /** `generationConfig.candidateCount`: candidates of a text answer. */
  candidates: number;
  /** What a text answer is made from. */
  text: ScriptInput;
}

function usage(
  facts: RequestFacts,
  output: { text: string; images: number },
): Record<string, unknown> {
  const promptText = textTokens(facts.allText);
  const promptImages = facts.inputImages * GEMINI_INPUT_IMAGE_TOKENS;
  const outText = textTokens(output.text);
  const outImages = output.images *
    (GEMINI_IMAGE_OUTPUT_TOKENS[facts.imageSize ?? "default"] ??
      GEMINI_IMAGE_OUTPUT_TOKENS.default);
  const promptDetails = [{ modality: "TEXT", tokenCount: promptText }];
  if (promptImages) promptDetails.push({ modality: "IMAGE", tokenCount: promptImages });
  const candidateDetails = [];
  if (outText) candidateDetails.push({ modality: "TEXT", tokenCount: outText });
  if (outImages) candidateDetails.push({ modality: "IMAGE", tokenCount: outImages });
  return {
    promptTokenCount: promptText + promptImages,
    candidatesTokenCount: outText + outImages,
    totalTokenCount: promptText + promptImages + outText + outImages,
    promptTokensDetails: promptDetails,
    ...(candidateDetails.length ? { candidatesTokensDetails: candidateDetails } : {}),
  };
}

/** Starts the simulator on a free loopback port. */
export function startGeminiUpstream(options: GeminiUpstreamOptions = {}): GeminiUpstream {
  const keys = options.keys ?? ["gemini-upstream-test"];
  const listedModels = options.listedModels ?? [
    { id: "gemini-2.5-flash", label: "Gemini 2.5 Flash" },
    { id: "gemini-2.5-flash-image", label: "Nano Banana" },
    { id: "text-embedding-004", methods: ["embedContent"] },
  ];
  const closing = new AbortController();
  const state: GeminiUpstream = {
    baseUrl: "",
    requests: [],
    faults: [],
    options,
    images: new Map(),
    close: async () => {},
    [Symbol.asyncDispose]: () => state.close(),
  };

  const wait = (signal: AbortSignal, ms?: number) =>
    new Promise<boolean>((resolve) => {
      if (signal.aborted || closing.signal.aborted) return resolve(false);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        closing.signal.removeEventListener("abort", onAbort);
        resolve(ok);
      };
      const onAbort = () => done(false);
      const timer = ms === undefined ? undefined : setTimeout(() => done(true), ms);
      signal.addEventListener("abort", onAbort);
      closing.signal.addEventListener("abort", onAbort);
    });

  // --- answer kinds -----------------------------------------------------------------------------

  function imageAnswer(facts: RequestFacts): AnswerPlan {
    const count = options.imagesPerAnswer ?? 1;
    const withText = (options.textPartFirst ?? true) && facts.modalities.includes("TEXT");
    const seed = `${facts.inputImages ? "edit" : "generate"}:${facts.prompt}`;
    const images: Part[] = Array.from({ length: count }, (_, index) => {
      const png = payloadBytes(options.payload, solidPng(8, 8, simulatedImageColor(seed, index)));
      state.images.set(`gimg_${crypto.randomUUID().replaceAll("-", "")}`, png);
      return { inlineData: { mimeType: "image/png", data: png.toBase64() } };
    });
    const text = withText ? GEMINI_IMAGE_TEXT : "";
    return {
      groups: withText ? [[{ text }], images] : [images],
      finishReason: "STOP",
      usageMetadata: usage(facts, { text, images: count }),
    };
  }

  function textAnswer(facts: RequestFacts, text: string): AnswerPlan {
    const groups: Part[][] = [];
    for (let i = 0; i < text.length; i += 24) groups.push([{ text: text.slice(i, i + 24) }]);
    return {
      groups: groups.length ? groups : [[{ text: "" }]],
      finishReason: "STOP",
      usageMetadata: usage(facts, { text, images: 0 }),
    };
  }

  function blockedAnswer(facts: RequestFacts): AnswerPlan {
    const promptTokens = textTokens(facts.allText) + facts.inputImages * GEMINI_INPUT_IMAGE_TOKENS;
    return {
      groups: [],
      finishReason: "",
      usageMetadata: { promptTokenCount: promptTokens, totalTokenCount: promptTokens },
      promptFeedback: {
        blockReason: "SAFETY",
        safetyRatings: [
          { category: "HARM_CATEGORY_SEXUALLY_EXPLICIT", probability: "NEGLIGIBLE" },
          { category: "HARM_CATEGORY_HATE_SPEECH", probability: "NEGLIGIBLE" },
          { category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
          { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
        ],
      },
    };
  }

  /** A text model's answer: thoughts, text in fragments, function calls whole in one block. */
  function scriptedAnswer(facts: RequestFacts): AnswerPlan {
    const answer = script({
      ...facts.text,
      callTools: options.callTools,
      extraOutputTokens: options.extraOutputTokens,
    }, options.cachedTokens);
    const groups: Part[][] = [];
    if (answer.reasoning) {
      groups.push([{
        text: answer.reasoning,
        thought: true,
        thoughtSignature: GEMINI_THOUGHT_SIGNATURE,
      }]);
    }
    for (let i = 0; i < answer.text.length; i += 5) {
      groups.push([{ text: answer.text.slice(i, i + 5) }]);
    }
    if (answer.calls.length) {
      groups.push(
        answer.calls.map((call, index) => ({
          functionCall: { name: call.name, args: call.args },
          ...(index === 0 ? { thoughtSignature: geminiCallSignature(call.name) } : {}),
        })),
      );
    }
    // As the real API counts them: the prompt once, the output of every candidate summed.
    const candidates = facts.candidates;
    const thoughts = answer.usage.reasoning * candidates;
    const output = answer.usage.output * candidates;
    return {
      groups: groups.length ? groups : [[{ text: "" }]],
      // Gemini finishes function calls with STOP, not a tool-specific reason.
      finishReason: answer.stop === "length" ? "MAX_TOKENS" : "STOP",
      candidates,
      usageMetadata: {
        promptTokenCount: answer.usage.input,
        candidatesTokenCount: output - thoughts,
        totalTokenCount: answer.usage.input + output,
        ...(answer.usage.cached ? { cachedContentTokenCount: answer.usage.cached } : {}),
        ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
      },
    };
  }

  function plan(facts: RequestFacts, fault?: GeminiFault): AnswerPlan {
    if (fault?.kind === "blocked") return blockedAnswer(facts);
    if (fault?.kind === "no_image") return textAnswer(facts, GEMINI_REFUSAL_TEXT);
    if (facts.modalities.includes("IMAGE")) return imageAnswer(facts);
    return scriptedAnswer(facts);
  }

  // --- rendering --------------------------------------------------------------------------------

  function render(answer: AnswerPlan, model: string, responseId: string, parts: Part[] | null) {
    const last = parts === null || answer.groups.at(-1) === parts;
    return {
      ...(answer.promptFeedback ? { promptFeedback: answer.promptFeedback } : {
        candidates: Array.from({ length: answer.candidates ?? 1 }, (_, index) => ({
          content: { role: "model", parts: parts ?? joinText(answer.groups.flat()) },
          ...(last ? { finishReason: answer.finishReason } : {}),
          index,
        })),
      }),
      ...(last ? { usageMetadata: answer.usageMetadata } : {}),
      modelVersion: model,
      responseId,
    };
  }

  function blocks(answer: AnswerPlan, model: string) {
    const responseId = crypto.randomUUID().replaceAll("-", "").slice(0, 22);
    if (answer.promptFeedback) return [render(answer, model, responseId, null)];
    return answer.groups.map((group) => render(answer, model, responseId, group));
  }

  // --- HTTP -------------------------------------------------------------------------------------

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    onError: simulatorOnError,
  }, async (req) => {
    const url = new URL(req.url);
    const listed = modelListAnswer(req, {
      dialect: "gemini",
      keys,
      models: listedModels,
      maxPage: options.listedPageSize,
    });
    if (listed) return listed;
    const route =
      /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/
        .exec(url.pathname);
    if (req.method !== "POST" || !route) {
      return googleError(404, `Method not found: ${req.method} ${url.pathname}`, "NOT_FOUND");
    }
    const model = decodeURIComponent(route[2]);
    const method = route[3] as GeminiRecordedRequest["method"];
    const apiKey = req.headers.get("x-goog-api-key") ?? url.searchParams.get("key");
    let body: Record<string, unknown> = {};
    let parseError = false;
    try {
      const parsed = await req.json();
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw 0;
      body = parsed;
    } catch {
      parseError = true;
    }
    state.requests.push({ path: url.pathname, apiKey, model, method, body });

    if (!apiKey) {
      return googleError(
        403,
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        "PERMISSION_DENIED",
      );
    }
    if (!keys.includes(apiKey)) {
      return googleError(
        400,
        "API key not valid. Please pass a valid API key.",
        "INVALID_ARGUMENT",
        [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "API_KEY_INVALID",
            domain: "googleapis.com",
            metadata: { service: "generativelanguage.googleapis.com" },
          },
        ],
      );
    }
    if (parseError) {
      return googleError(400, "Invalid JSON payload received.", "INVALID_ARGUMENT");
    }
    if (method === "countTokens") {
      const fault = state.faults.shift() ?? state.fault;
      if (fault?.kind === "status") {
        return googleError(
          fault.status,
          fault.message ?? defaultMessage(fault.status),
          statusName(fault.status),
        );
      }
      const counted = countTokens(model, body);
      return typeof counted === "string"
        ? googleError(400, counted, "INVALID_ARGUMENT")
        : Response.json(counted);
    }
    const facts = readRequest(model, body);
    if (typeof facts === "string") return googleError(400, facts, "INVALID_ARGUMENT");

    const fault = state.faults.shift() ?? state.fault;
    if (options.delayMs && !(await wait(req.signal, options.delayMs))) {
      return new Response(null, { status: 499 });
    }
    if (fault?.kind === "status") {
      const details = fault.retryDelay
        ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: fault.retryDelay }]
        : undefined;
      const response = googleError(
        fault.status,
        fault.message ?? defaultMessage(fault.status),
        statusName(fault.status),
        details,
      );
      if (fault.retryAfter) response.headers.set("retry-after", fault.retryAfter);
      return response;
    }
    if (fault?.kind === "hang") {
      await wait(req.signal);
      return new Response(null, { status: 499 });
    }
    const sse = method === "streamGenerateContent" && url.searchParams.get("alt") === "sse";
    if (fault?.kind === "malformed") {
      return sse
        ? new Response('data: {"candidates": [{"content": {"role": "model", "parts": [{"te\n\n', {
          headers: { "content-type": "text/event-stream" },
        })
        : new Response('{"candidates": [{"content": {"role": "model", "parts": [', {
          headers: { "content-type": "application/json; charset=UTF-8" },
        });
    }

    const answer = plan(facts, fault);
    if (method === "generateContent") {
      const responseId = crypto.randomUUID().replaceAll("-", "").slice(0, 22);
      return Response.json(render(answer, model, responseId, null));
    }
    const list = blocks(answer, model);
    if (!sse) return Response.json(list); // streamGenerateContent without alt=sse: a JSON array
    return frameStream(list.map((block) => `data: ${JSON.stringify(block)}\r\n\r\n`), {
      fault: fault?.kind === "in_stream_error" || fault?.kind === "die_mid_stream" ||
          fault?.kind === "usage_then_break" || fault?.kind === "oversized_event"
        ? fault
        : undefined,
      // Usage metadata without a finish reason, as a chunk mid-answer may carry it.
      usageFrame: `data: ${
        JSON.stringify({ usageMetadata: answer.usageMetadata, modelVersion: model })
      }\r\n\r\n`,
      errorFrame: (_sent, message) =>
        `data: ${
          JSON.stringify({
            error: {
              code: 503,
              message: message ?? "The model is overloaded.",
              status: "UNAVAILABLE",
            },
          })
        }\r\n\r\n`,
      signal: req.signal,
    });
  });
  state.baseUrl = `http://127.0.0.1:${server.addr.port}`;
  state.close = async () => {
    closing.abort();
    await server.shutdown();
  };
  return state;
}

/** The signature the simulator gives its thoughts. */
export const GEMINI_THOUGHT_SIGNATURE = "c2lnbmF0dXJl";

/** The signature the simulator gives the first function call of a turn, by the call's name. */
export function geminiCallSignature(name: string): string {
  return btoa(`call:${name}`);
}

const SKIP_SIGNATURE = "skip_thought_signature_validator";

/** Whether a replayed part's thought signature is one the simulator gave that part. */
function signatureValid(part: Part): boolean {
  const signature = part.thoughtSignature;
  if (signature === undefined || signature === SKIP_SIGNATURE) return true;
  const call = part.functionCall as { name?: string } | undefined;
  if (call) return signature === geminiCallSignature(call.name ?? "");
  return signature === GEMINI_THOUGHT_SIGNATURE;
}

/**
 * A CountTokensResponse, as the real API checks the request: `contents` or a
 * `generateContentRequest` naming its model (`models/…`), not both. The count is the prompt
 * tokens a generateContent call of the same request reports. A string is the error message.
 */
function countTokens(
  model: string,
  body: Record<string, unknown>,
): Record<string, unknown> | string {
  for (const field of Object.keys(body)) {
    if (field !== "contents" && field !== "generateContentRequest") {
      return `Invalid JSON payload received. Unknown name "${field}": Cannot find field.`;
    }
  }
  const whole = body.generateContentRequest as Record<string, unknown> | undefined;
  if ((body.contents === undefined) === (whole === undefined)) {
    return "* CountTokensRequest: exactly one of contents and generate_content_request must be set.\n";
  }
  if (whole && (typeof whole.model !== "string" || !whole.model.startsWith("models/"))) {
    return "* GenerateContentRequest.model: unexpected model name format\n";
  }
  const facts = readRequest(model, whole ?? { contents: body.contents });
  if (typeof facts === "string") return facts;
  const tokens = script(facts.text).usage.input;
  const images = facts.inputImages * IMAGE_INPUT_TOKENS;
  return {
    totalTokens: tokens,
    promptTokensDetails: [
      { modality: "TEXT", tokenCount: tokens - images },
      ...(images ? [{ modality: "IMAGE", tokenCount: images }] : []),
    ],
  };
}

/** Reads and checks a GenerateContentRequest; a string is the INVALID_ARGUMENT message. */
function readRequest(model: string, body: Record<string, unknown>): RequestFacts | string {
  const contents = body.contents as Content[] | undefined;
  if (!Array.isArray(contents) || contents.length === 0) {
    return "* GenerateContentRequest.contents: contents is not specified\n";
  }
  for (const [index, content] of contents.entries()) {
    if (!Array.isArray(content?.parts) || content.parts.length === 0) {
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`;
    }
    if (content.role !== undefined && content.role !== "user" && content.role !== "model") {
      return `Please use a valid role: user, model.`;
    }
    for (const part of content.parts) {
      if (!signatureValid(part)) {
        return `Thought signature is not valid (contents[${index}]). Send back the signature exactly as received, on the part it came on.`;
      }
      const call = part.functionCall as { name?: string; args?: unknown } | undefined;
      if (
        call &&
        (typeof call.name !== "string" ||
          (call.args !== undefined && (typeof call.args !== "object" || Array.isArray(call.args))))
      ) {
        return `* GenerateContentRequest.contents[${index}].parts: functionCall needs a name and object args\n`;
      }
      const response = part.functionResponse as { name?: string } | undefined;
      if (response && typeof response.name !== "string") {
        return `* GenerateContentRequest.contents[${index}].parts.function_response.name: Name cannot be empty.\n`;
      }
    }
  }
  const declarations =
    ((body.tools ?? []) as Array<{ functionDeclarations?: Array<Record<string, unknown>> }>)
      .flatMap((tool) => tool.functionDeclarations ?? []);
  for (const declaration of declarations) {
    if (!declaration.name) {
      return "* GenerateContentRequest.tools[0].function_declarations[0].name: Name cannot be empty.\n";
    }
    if (declaration.parameters && declaration.parametersJsonSchema) {
      return "* GenerateContentRequest.tools[0].function_declarations[0]: parameters and parameters_json_schema cannot both be set.\n";
    }
  }
  const config = (body.generationConfig ?? {}) as {
    responseModalities?: unknown[];
    imageConfig?: { aspectRatio?: unknown; imageSize?: unknown };
    candidateCount?: unknown;
  };
  const candidates = config.candidateCount ?? 1;
  if (!Number.isInteger(candidates) || (candidates as number) < 1 || (candidates as number) > 8) {
    return `* GenerateContentRequest.generation_config.candidate_count: must be between 1 and 8, got ${
      JSON.stringify(candidates)
    }\n`;
  }
  const modalities = config.responseModalities ?? ["TEXT"];
  for (const [index, modality] of modalities.entries()) {
    if (typeof modality !== "string" || !MODALITIES.includes(modality)) {
      return `Invalid value at 'generation_config.response_modalities[${index}]' (type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig.Modality), ${
        JSON.stringify(modality)
      }`;
    }
  }
  const imageConfig = config.imageConfig ?? {};
  if (
    imageConfig.aspectRatio !== undefined &&
    !GEMINI_ASPECT_RATIOS.includes(imageConfig.aspectRatio as string)
  ) {
    return `Unsupported aspect ratio: ${JSON.stringify(imageConfig.aspectRatio)}.`;
  }
  if (
    imageConfig.imageSize !== undefined &&
    !GEMINI_IMAGE_SIZES.includes(imageConfig.imageSize as string)
  ) {
    return `Unsupported image size: ${JSON.stringify(imageConfig.imageSize)}.`;
  }
  const parts = contents.flatMap((content) => content.parts ?? []);
  const textOf = (list: Part[]) =>
    list.filter((part) => !part.thought).map((part) => part.text ?? "").join("");
  const lastUser = [...contents].reverse().find((c) =>
    (c.role ?? "user") === "user" && textOf(c.parts ?? []) !== ""
  );
  const last = contents.at(-1);
  const results = (last?.parts ?? []).filter((part) => part.functionResponse)
    .map((part) =>
      JSON.stringify((part.functionResponse as { response?: unknown }).response ?? {})
    );
  const toolConfig = (body.toolConfig as {
    functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] };
  } | undefined)
    ?.functionCallingConfig;
  const allowed = toolConfig?.allowedFunctionNames ?? [];
  const thinking = (config as { thinkingConfig?: { includeThoughts?: boolean } }).thinkingConfig;
  const system = (body.systemInstruction as Content | undefined)?.parts ?? [];
  const inputImages = parts.filter((part) => part.inlineData || part.fileData).length;
  return {
    model,
    prompt: textOf(lastUser?.parts ?? []),
    allText: textOf(parts),
    inputImages,
    modalities: modalities as string[],
    imageSize: imageConfig.imageSize as string | undefined,
    candidates: candidates as number,
    text: {
      lastUserText: textOf(lastUser?.parts ?? []),
      allText: textOf(system) + textOf(parts) + results.join(""),
      messages: contents.length,
      tools: declarations.map((declaration) => declaration.name as string),
      toolChoice: toolConfig?.mode === "NONE"
        ? "none"
        : toolConfig?.mode === "ANY"
        ? (allowed.length === 1 ? { name: allowed[0] } : "required")
        : undefined,
      toolResults: results,
      images: inputImages,
      maxTokens: (config as { maxOutputTokens?: number }).maxOutputTokens,
      reasoning: thinking?.includeThoughts === true,
    },
  };
}

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Google's status name for an HTTP status. */
export function statusName(status: number): string {
  return STATUS_NAMES[status] ??
    (status >= 500 ? "UNKNOWN" : status >= 400 ? "FAILED_PRECONDITION" : "OK");
}

function defaultMessage(status: number): string {
  switch (status) {
    case 429:
      return "Resource has been exhausted (e.g. check quota).";
    case 500:
      return "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting";
    case 503:
      return "The model is overloaded. Please try again later.";
    case 504:
      return "Deadline expired before operation could complete.";
    default:
      return "Simulated failure";
  }
}

function googleError(status: number, message: string, name: string, details?: unknown[]) {
  return Response.json(
    { error: { code: status, message, status: name, ...(details ? { details } : {}) } },
    { status },
  );
}

/** Adjacent text parts as one, as a whole (non-streamed) answer has them. */
function joinText(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const part of parts) {
    const previous = out.at(-1);
    const isText = Object.keys(part).length === 1 && typeof part.text === "string";
    if (isText && previous && Object.keys(previous).length === 1 && previous.text !== undefined) {
      out[out.length - 1] = { text: previous.text + part.text };
    } else {
      out.push(part);
    }
  }
  return out;
}

/** The bytes of every inlineData part of a GenerateContentResponse. */
export function inlineImages(response: {
  candidates?: Array<{ content?: { parts?: Part[] } }>;
}): Uint8Array[] {
  return (response.candidates ?? []).flatMap((c) => c.content?.parts ?? [])
    .filter((part) => part.inlineData)
    .map((part) => Uint8Array.fromBase64(part.inlineData!.data));
}
