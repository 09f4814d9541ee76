/**
 * What a channel type is: which kinds of model it serves, the shape of its base URL, how its
 * errors read, and for each kind the functions that build its requests and read its answers.
 * A provider file is the one place that knows its upstream's URLs, auth and stream framing:
 * building a request is async (a provider may sign it, or fetch a token first), and a stream
 * that is not SSE is cut into events by its `decodeStream`. Fetching, KV and money live outside
 * (core/upstream, the modality services).
 */

import type { Channel, ChannelInput } from "../channels/channel_schema.ts";
import { z } from "zod";
import { optionalString, readLenientJson } from "../util/lenient_schema.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import type { TextFormat } from "../formats/neutral.ts";
import type { ImageJob, UpstreamImage } from "../jobs/image_job.ts";
import type { EmbeddingJob } from "../jobs/embedding_job.ts";
import type {
  UpstreamVideoState,
  VideoAsk,
  VideoJob,
  VideoReference,
  VideoRefusal,
} from "../jobs/video_job.ts";
import type { ErrorDialect } from "../upstream/error_reader.ts";
import type { UpstreamRequest } from "../upstream/call.ts";
import type { UpstreamEvents } from "../upstream/upstream_events.ts";
import type { ClientHints } from "./client_hints.ts";
import type { ModelList } from "./model_list.ts";
import type { TranscriptionJob } from "../jobs/transcription_job.ts";
import type { SpeechRequest } from "../jobs/speech_job.ts";

export type { ModelKind } from "../channels/catalog.ts";
import type { ModelKind } from "../channels/catalog.ts";

/** Where one call goes: the channel, one of its upstream keys, and the model's upstream name. */
export interface UpstreamTarget {
  channel: Channel;
  /** The upstream secret for this call. */
  apiKey: string;
  /** The model's name upstream (after the channel's model map). */
  model: string;
}

/** A count of a request's input tokens, in the figures Google's CountTokensResponse has. */
export interface TokenCount {
  /** All input tokens, cached ones included. */
  input: number;
  /** Of those, the tokens read from a cache, when the upstream says. */
  cached?: number;
  /** Per modality, when the upstream says (`[{modality, tokenCount}]`). */
  byModality?: Array<{ modality: string; tokenCount: number }>;
}

/** An upstream's token-counting call. */
export interface TokenCounter {
  /**
   * The call that counts `request`, a request body of the provider's own format (the model is
   * set by the call).
   */
  request(
    target: UpstreamTarget,
    input: { request: Record<string, unknown>; hints: ClientHints },
  ): Promise<UpstreamRequest>;
  /** The count in the upstream's answer, or undefined when it has none. */
  read(text: string): TokenCount | undefined;
}

export interface TextProvider {
  /** The wire format the upstream speaks. */
  format: TextFormat;
  /**
   * For upstreams that speak more than one format (Vertex AI: Gemini and Claude models; Bedrock:
   * Converse, or Anthropic's bodies for Claude): the format of `upstreamModel` on `channel`. Unset:
   * `format`.
   */
  formatFor?(channel: Channel, upstreamModel: string): TextFormat;
  /** The call that sends `body` (already in `format`), with the client's hints it takes. */
  request(
    target: UpstreamTarget,
    input: { stream: boolean; body: string; hints: ClientHints },
  ): Promise<UpstreamRequest>;
  /**
   * The events of a stream's answer, for an upstream whose framing is not SSE (JSON lines, a
   * binary event stream): each event's data is one chunk of `format`. Build it with
   * `framedEvents` (core/upstream/upstream_events.ts), which keeps the event size cap. Unset: SSE.
   */
  decodeStream?(response: Response, options: { maxEventBytes: number }): UpstreamEvents;
  /** The upstream's own count of a request's input tokens, where it has one. */
  countTokens?: TokenCounter;
  /** Hints this channel removes by its settings, named as `x-gateway-ignored-fields` entries. */
  removedHints?(channel: Channel, hints: ClientHints): string[];
}

export interface ImageProvider {
  /** The calls that serve `job`: one, or one per image for upstreams that draw one a call. */
  requests(target: UpstreamTarget, job: ImageJob): Promise<UpstreamRequest[]>;
  /** The images of one call's answer; none is a failed attempt. */
  readImages(text: string): UpstreamImage[];
  /** Fields of `job` this upstream (its model `model`) cannot honour. */
  ignoredFields(job: ImageJob, model: string): string[];
  /** A generate-content body passed through as it came (upstreams that speak it natively). */
  generateContent?(target: UpstreamTarget, body: unknown): Promise<UpstreamRequest>;
  /**
   * Whether `generateContent` serves upstream model `model` (default: always, when given); when
   * not, a generate-content request becomes an image job as on upstreams without it.
   */
  passesThrough?(model: string): boolean;
  /**
   * Why upstream model `model` cannot serve `job` at all, naming the request field; such a
   * channel is left out, and a 400 names the field when no channel is left (nothing held).
   */
  refusal?(model: string, job: ImageJob): { param: string; message: string } | undefined;
}

/** What one embedding call answered: a vector per input, in order, and the input's tokens. */
export interface UpstreamEmbeddings {
  /** Numbers, or a base64 float32 vector when the upstream was asked for base64. */
  vectors: Array<number[] | string>;
  /** The input tokens the upstream reported, as it reported them (judged before billing). */
  inputTokens?: unknown;
  /** The answer's bytes, where it is already the client's format (see `passThrough`). */
  raw?: Uint8Array;
  /** How `raw`'s vectors are written: it is passed on only to a client that asked for that. */
  rawEncoding?: "float" | "base64";
}

export interface EmbeddingProvider {
  /** Whether the upstream takes inputs given as token ids. */
  takesTokens: boolean;
  /**
   * Whether its answer is OpenAI's own embeddings list (floats or base64, as asked), to pass on
   * with the model renamed.
   */
  passThrough?: boolean;
  /**
   * The calls that serve `job` (several when the upstream caps a batch), each with how many of
   * the inputs it carries, in order; base64 where the upstream makes it, if asked.
   */
  requests(
    target: UpstreamTarget,
    input: { job: EmbeddingJob; base64: boolean },
  ): Promise<Array<UpstreamRequest & { inputs: number }>>;
  /** One call's answer (its bytes); an answer without a vector per input is a failed attempt. */
  read(answer: Uint8Array, expected: number): UpstreamEmbeddings;
  /** Fields of `job` this upstream (its model `model`) cannot honour. */
  ignoredFields(job: EmbeddingJob, model: string): string[];
  /**
   * What upstream model `model` cannot take of `job` (an unknown model family, a vector length
   * it does not make), named by the request's field; checked before anything is held, so a job
   * no channel can serve is a 400. Unset: anything.
   */
  refusal?(model: string, job: EmbeddingJob): { param: string; message: string } | undefined;
}

/** How a video task's reference files reach the upstream. */
export interface VideoReferences {
  /** A hosted, expiring URL the upstream fetches. */
  urlOf(reference: VideoReference): string;
  /** The bytes, for upstreams that take the files themselves. */
  fileOf(reference: VideoReference): Promise<Blob>;
  /** Sent where the upstream takes one, so a retried submission finds its first task. */
  idempotencyKey: string;
}

export interface VideoProvider {
  /**
   * The upstream dedupes creates by `references.idempotencyKey`: a create asked again after its
   * answer was lost finds the first task rather than making a second.
   */
  idempotent?: boolean;
  create(
    target: UpstreamTarget,
    input: { job: VideoJob; references: VideoReferences },
  ): Promise<UpstreamRequest>;
  /** The upstream's task id in its create answer. */
  readCreated(text: string): string;
  poll(target: UpstreamTarget, upstreamId: string): Promise<UpstreamRequest>;
  readTask(text: string): UpstreamVideoState;
  /**
   * What this upstream cannot make of `ask` for upstream model `model` (a reference kind or
   * count, a duration, a ratio), checked at submission so nothing is charged; unset: anything.
   */
  refusal?(model: string, ask: VideoAsk): VideoRefusal | undefined;
  /**
   * The length asked for when the client sends no `duration` and this upstream cannot make the
   * gateway's default (5 s): its own default.
   */
  defaultDuration?: number;
  /**
   * The call that fetches a finished video with the channel's key, from a succeeded state's
   * `download`; the gateway hosts the bytes. Needed when `readTask` answers `download`.
   */
  download?(target: UpstreamTarget, download: string): Promise<UpstreamRequest>;
  /** A channel test: a real call that proves the key and the address and makes no task. */
  probe: {
    /** The call, in words, for the test's answer. */
    call: string;
    request(target: UpstreamTarget): Promise<UpstreamRequest>;
    /** Throws when the answer is not what this upstream gives to a working key. */
    read(text: string): void;
  };
}

/** A rerank call as the gateway sends it: documents are plain strings by then. */
export interface RerankCall {
  query: string;
  documents: string[];
  topN?: number;
}

/** A rerank answer as the gateway reads it. */
export interface RerankAnswer {
  /** Each ranked document's index in the call's documents, and its score. */
  results: Array<{ index: number; relevance_score: number }>;
  /** Tokens the upstream counted (Jina's and vLLM's `usage.total_tokens`), when it says. */
  tokens?: number;
  /** Search units the upstream billed (Cohere's `meta.billed_units.search_units`), when it says. */
  searchUnits?: number;
}

export interface RerankProvider {
  request(target: UpstreamTarget, call: RerankCall): Promise<UpstreamRequest>;
  /** Reads an answer to `call`; an answer that does not fit it is a failed attempt. */
  read(text: string, call: RerankCall): RerankAnswer;
}

export interface ModerationProvider {
  /** The call that sends `body` (the client's, model mapped) as it came. */
  request(target: UpstreamTarget, body: Record<string, unknown>): Promise<UpstreamRequest>;
  /** The answer as the client gets it; one without `results` is a failed attempt. */
  read(text: string): Record<string, unknown>;
}

/** Audio transcriptions and translations (multipart up, the answer passed on as it came). */
export interface TranscriptionProvider {
  request(target: UpstreamTarget, job: TranscriptionJob): Promise<UpstreamRequest>;
}

/** Text to speech: the audio answer's bytes are relayed to the client as they come. */
export interface SpeechProvider {
  /** The call that speaks `job` (its `model` is the public one; the target has the upstream's). */
  request(target: UpstreamTarget, job: SpeechRequest): Promise<UpstreamRequest>;
  /** Fields of `job` this upstream model cannot honour (left out of the call). */
  ignoredFields(target: UpstreamTarget, job: SpeechRequest): string[];
}

/** A channel field only some types read, as a form asks for it (its value is a string). */
export interface ChannelTypeField {
  name: "project" | "location" | "vertex_publisher";
  label: string;
  hint: string;
  placeholder?: string;
  /** The values it may take, `[value, label]`, for a pick list ("": left unset). */
  options?: ReadonlyArray<readonly [string, string]>;
  /** A channel of the type cannot work without it (refused at create). */
  required: boolean;
}

/** What a type's upstream keys are, when not an opaque secret string. */
export interface UpstreamKeyForm {
  /** What a form's key box asks for. */
  hint: string;
  /** What is wrong with `key`, in words that quote no part of it; undefined when nothing. */
  problem(key: string): string | undefined;
}

export interface Provider {
  /** Kinds of catalog model it serves; the first is what `create_models` makes. */
  kinds: readonly ModelKind[];
  /** A base URL in the form the provider's SDK takes, shown when one is refused. */
  baseUrlExample: string;
  /** Path endings the gateway appends itself, which a base URL must therefore not carry. */
  appendedPaths: RegExp;
  errors: ErrorDialect;
  /**
   * Whether a channel of this type may have no upstream key (a local server such as Ollama or
   * vLLM that takes none): its calls then carry no auth header.
   */
  keyless?: boolean;
  /** Channel settings only this type reads (so forms show them for it alone). */
  settings?: readonly string[];
  /**
   * Why a channel's settings cannot work with this type (a field it needs, or two that do not
   * go together), named by the field to change; undefined when they can. Checked at create and
   * change, as a 400.
   */
  channelProblem?(
    channel: Omit<ChannelInput, "keys">,
  ): { param: string; message: string } | undefined;
  /**
   * What is wrong with `key` as an upstream key of `channel` (a form its type cannot use), in
   * words quoting none of it; undefined when nothing. Checked for new keys, as a 400.
   */
  keyProblem?(channel: Omit<ChannelInput, "keys">, key: string): string | undefined;
  text?: TextProvider;
  image?: ImageProvider;
  video?: VideoProvider;
  rerank?: RerankProvider;
  moderation?: ModerationProvider;
  /** How to read the upstream's own model list ("Fetch models"); unset: it has none. */
  modelList?: ModelList;
  /** Audio transcriptions and translations (`audio` models priced per second or per token). */
  transcription?: TranscriptionProvider;
  speech?: SpeechProvider;
  embedding?: EmbeddingProvider;
  /** Fields of the channel this type reads beside the common ones. */
  fields?: readonly ChannelTypeField[];
  /** Unset: a key is any non-empty secret string. */
  keyForm?: UpstreamKeyForm;
}

/** Whether a count in a token-counting answer is one (a non-negative integer). */
export function isTokenCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}

/** The bearer header of `apiKey`; none for a channel without keys (an empty key). */
export function bearerAuth(apiKey: string): Record<string, string> {
  return apiKey === "" ? {} : { authorization: `Bearer ${apiKey}` };
}

/** JSON POST headers with a bearer key (none for a channel without keys). */
export function bearerJson(apiKey: string, accept = "application/json"): Record<string, string> {
  return { ...bearerAuth(apiKey), "content-type": "application/json", accept };
}

/**
 * A finished video the gateway will never fetch (an address it may not send the key to): the
 * task fails at once, refunded, rather than being tried again until its timeout.
 */
export class FinalDownloadError extends Error {}

/** A video upstream's create answer (`{id}` on both video upstreams). */
const createdTaskSchema = z.looseObject({ id: optionalString });

/** The task id in a video upstream's create answer. */
export function readCreatedTaskId(text: string): string {
  const { id } = readLenientJson(createdTaskSchema, text);
  if (id === undefined || id === "") {
    throw new UpstreamAttemptError("The upstream's create answer has no task id", {
      retryable: true,
    });
  }
  return id;
}
