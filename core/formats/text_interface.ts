/**
 * One inbound text format as a whole: its codec, and everything the gateway says or reads in that
 * format's own words — where its callers put their key, its error envelope, its model-list shape,
 * its pass-through body, its reasoning-history rules, its fewest output tokens and its name. One
 * object per format, in the format's folder (`<format>/interface.ts`); the table of them is
 * `interfaces.ts`. No HTTP framework types: routes adapt these to theirs.
 */

import type { z } from "zod";
import type { CatalogModel } from "../channels/catalog.ts";
import type { TokenUsage } from "../billing/usage.ts";
import type { GatewayError } from "../errors.ts";
import type { PresentedCredential } from "../keys/credentials.ts";
import type { FormatCodec } from "./codec.ts";
import type { NeutralRequest } from "./neutral.ts";
import type { GeminiFraming } from "./gemini/encode_stream.ts";

/** The parts of a request a credential is read from. */
export interface CredentialSource {
  headers: Headers;
  url: URL;
}

/** An error as a family's envelope answers it. */
export interface ErrorAnswer {
  status: number;
  body: unknown;
}

/** The query of a model-list request, read strictly (a bad value is a 400 naming it). */
export interface ListQuery {
  value(name: string): string | undefined;
  integer(name: string, range: { min: number; max: number; fallback: number }): number;
  /** The 400 for a query parameter that holds no value this API gave. */
  invalid(name: string, why: string): GatewayError;
}

/**
 * What the SDKs of one family share, whichever of the family's formats they call: the place of
 * the key, the error envelope and the model-list shape (chat and responses are both OpenAI's).
 */
export interface ClientFamily {
  /** The family's name: the request context's `interface` ("openai", "anthropic", "gemini"). */
  name: string;
  /** Reads the caller's key from headers (and, for some families, the query). */
  readCredential(request: CredentialSource): PresentedCredential | undefined;
  /** The 401's message when no key was given. */
  missingCredential: string;
  /** Whether a path is the family's own, whatever credential comes with it. */
  ownsPath(path: string): boolean;
  /** Whether a request carries a credential only this family sends (on the shared model list). */
  sendsOwnCredential(request: CredentialSource): boolean;
  /** `error` in the family's envelope, with the status that envelope goes with. */
  errorAnswer(error: GatewayError, requestId: string): ErrorAnswer;
  /** A header that repeats the request id besides `x-request-id` (Anthropic's `request-id`). */
  requestIdHeader?: string;
  /** The model list (`GET /v1/models`) in the family's shape. */
  modelList(models: CatalogModel[], query: ListQuery): unknown;
  /** One model (`GET /v1/models/{id}`) in the family's shape. */
  model(model: CatalogModel): unknown;
}

/** What a request body says, read by its format: the text service's view of it. */
export interface InboundRequest {
  model: string;
  stream: boolean;
  /** The neutral form (decoded only when a conversion needs it). */
  decode(): NeutralRequest;
  /** A field that only an upstream of the same format can serve, or null. */
  exclusive: string | null;
  /** A field other formats drop and name; exclusive under strict fields. */
  strictExclusive?: string | null;
  /** Output tokens the request allows, when it says. */
  maxOutputTokens?: number;
  /** Chat: whether the client asked for usage in the stream. */
  includeUsage?: boolean;
  /** Gemini: how the client wants a stream framed. */
  framing?: GeminiFraming;
  /** Upper bound and typical estimate of input tokens, when the format counts its own body. */
  inputUpperBound?(): number;
  inputEstimate?(): number;
}

/** What a format whose route carries the model (generate-content) reads from the path. */
export interface RequestPath {
  model: string;
  stream: boolean;
  framing: GeminiFraming;
}

/** What a format's own relay of a same-format stream needs to know. */
export interface OwnRelayOptions {
  /** Whether the client asked for usage in the stream. */
  clientWantsUsage: boolean;
  upstreamModel: string;
  publicModel: string;
}

/**
 * A format's own relay of a same-format stream, in place of the plain one (chat's hides the
 * usage chunk the client did not ask for): one upstream event's data in, the client's out.
 */
export interface OwnStreamRelay {
  relay(data: string): string | null;
  readonly usage: TokenUsage | undefined;
  readonly outputChars: number;
  readonly completed: boolean;
  /** An in-stream error the upstream sent, if any. */
  readonly upstreamError: unknown;
}

/** A format served by the shared text route (`routes/text_interface_routes.ts`). */
export interface SharedRoute {
  /** The POST path. */
  path: string;
  /** What a body must hold (its 400s in the family's envelope). */
  schema: z.ZodType<{ model: string }>;
}

// deno-lint-ignore no-explicit-any
type Json = any;

export interface TextInterface {
  /** The format's id: the channel format it passes through to unchanged ("openai-chat"). */
  format: string;
  /** The name a request record gives it ("openai-chat", "anthropic"). */
  name: string;
  /** The gateway's route for it, for messages that point callers to it. */
  route: string;
  /** Route templates of the format's own requests (a record is named by the one it matched). */
  paths: readonly string[];
  family: ClientFamily;
  codec: FormatCodec;
  /** What a body (checked by the route's schema) asks for; `path` where the route carries it. */
  readRequest(body: Json, path?: RequestPath): InboundRequest;
  /** The upstream body of a same-format request: the client's body with the upstream model. */
  passThroughBody(body: unknown, target: { upstreamModel: string; stream: boolean }): string;
  /**
   * The SSE frame of one relayed event of a same-format stream (its `event` name and data, the
   * model renamed); default: `event:` and `data:` lines ending in a blank line.
   */
  relayFrame?(event: string | undefined, data: string): string;
  /** A relay of the format's own for same-format streams (default: each event as it came). */
  ownStreamRelay?(options: OwnRelayOptions): OwnStreamRelay;
  /**
   * The body without the reasoning another provider signed, and the fields dropped
   * (formats that carry no signed reasoning leave it out).
   */
  withoutForeignReasoning?(body: unknown): { body: unknown; dropped: string[] };
  /** The fewest output tokens the format accepts (the Responses API refuses fewer than 16). */
  fewestOutputTokens: number;
  /** The body field holding several answers (chat `choices`, Gemini `candidates`), if any. */
  answersField?: string;
  /** How many answers a request asks for (chat `n`, Gemini `candidateCount`), when it says. */
  answersAskedFor?(body: unknown): number | undefined;
  /** Set when the shared text route serves the format (else a route file of its own does). */
  sharedRoute?: SharedRoute;
}
