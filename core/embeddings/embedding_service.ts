/**
 * Serving an embedding request on `openai`, `azure-openai`, `gemini`, `vertex` and `bedrock`
 * channels: hold the most its input can cost, call with failover, settle the upstream's usage (or
 * the gateway's estimate when it reports none: 4 characters per token, rounded up per input, see
 * embedding_job.ts) off the response path, or release in full when no channel answered. Billed
 * like text: a key without caps reserves from its budget lease, a key with caps holds in the
 * ledger.
 */

import type { Channel } from "../channels/channel_schema.ts";
import { resolveModel } from "../channels/model_access.ts";
import { invalidRequest } from "../errors.ts";
import type { Gateway } from "../gateway.ts";
import { RequestBill } from "../billing/request_bill.ts";
import { embeddingCost } from "../billing/embedding_price.ts";
import type { EmbeddingPrice } from "../billing/price_schema.ts";
import { embeddingReceipt } from "../billing/receipt.ts";
import { settleAndLog } from "../billing/settle_and_log.ts";
import type { UsageSource } from "../billing/usage.ts";
import { providerOf, upstreamTarget } from "../providers/provider_table.ts";
import { upstreamModelName } from "../channels/routing.ts";
import type { UpstreamEmbeddings } from "../providers/provider.ts";
import type { RequestScope } from "../scope.ts";
import type { AttemptRecord } from "../telemetry/request_log.ts";
import { type AttemptTrace, withFailover } from "../upstream/failover.ts";
import { builtRequest, callUpstreamBytes } from "../upstream/call.ts";
import { headerList } from "../util/header_value.ts";
import {
  embeddingAnswerMaxBytes,
  type EmbeddingJob,
  embeddingTokens,
  hasTokenInputs,
} from "../jobs/embedding_job.ts";
import { encodedVector } from "./vector_encoding.ts";
import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { mapLimited } from "../util/map_limited.ts";

/**
 * The most calls of one request under way at once: a batch an upstream takes one input a call
 * (gemini-embedding-001 on Vertex, Titan on Bedrock) is 2,048 calls at the most, which all at
 * once would spend the channel's quota in a burst.
 */
export const EMBEDDING_CALLS_AT_ONCE = 8;

/** The 402's advice besides adding credit, for embedding requests. */
export const EMBEDDINGS_REMEDY = "send fewer or shorter inputs";

/** What the interfaces answer from: a vector per input and what was billed. */
export interface EmbeddingsAnswer {
  /** Base64 strings when base64 was asked, else numbers. */
  vectors: Array<number[] | string>;
  inputTokens: number;
  usageSource: UsageSource;
  headers: Record<string, string>;
  /**
   * The upstream's answer to pass on (model renamed by the route), when it is OpenAI's float
   * list and its usage is the one billed; else the interface writes its answer from `vectors`.
   */
  raw?: Uint8Array;
}

/**
 * One attempt of `job` on `channel`: every call the provider needs (several for a large batch on
 * Gemini, Vertex or Bedrock), EMBEDDING_CALLS_AT_ONCE at a time; all must answer, or the attempt
 * fails. The vectors come back in the encoding asked for (base64 of float32 made here when the
 * upstream answered numbers).
 */
export async function attemptEmbeddings(
  channel: Channel,
  job: EmbeddingJob,
  options: { signal: AbortSignal; maxBytes: number; base64: boolean; trace?: AttemptTrace },
): Promise<UpstreamEmbeddings & { ignoredFields: string[] }> {
  const provider = providerOf(channel);
  const embedding = provider.embedding!;
  const target = upstreamTarget(channel, job.model, options.trace);
  const requests = await builtRequest(
    embedding.requests(target, { job, base64: options.base64 }),
  );
  const answers = await mapLimited(
    requests,
    EMBEDDING_CALLS_AT_ONCE,
    ({ inputs, ...request }) =>
      callUpstreamBytes(channel, request, { ...options, errors: provider.errors }).then((answer) =>
        embedding.read(answer, inputs)
      ),
  );
  const reported = answers.map((answer) => answer.inputTokens);
  const encodeAll = () =>
    answers.flatMap((answer) => answer.vectors).map((vector) => {
      const encoded = encodedVector(vector, options.base64);
      if (encoded === undefined) {
        throw new UpstreamAttemptError("The upstream answered an embedding that is not float32", {
          retryable: true,
        });
      }
      return encoded;
    });
  // One call's answer in OpenAI's own format and the encoding asked (the provider checked its
  // vector count and read its usage without parsing the vectors): passed on as it came, and its
  // vectors are only parsed if an interface asks for them.
  const asked = options.base64 ? "base64" : "float";
  const raw = embedding.passThrough && answers.length === 1 && answers[0].rawEncoding === asked
    ? answers[0].raw
    : undefined;
  let vectors = raw === undefined ? encodeAll() : undefined;
  return {
    get vectors() {
      return vectors ??= encodeAll();
    },
    raw,
    inputTokens: reported.every((count) => typeof count === "number")
      ? reported.reduce((sum: number, count) => sum + (count as number), 0)
      : reported.length === 1
      ? reported[0]
      : undefined,
    ignoredFields: embedding.ignoredFields(job, target.model),
  };
}

/**
 * The input tokens to bill: the upstream's count when it is a positive whole number the input
 * can be (at most four times the hold's bound and 10,000 more, as for text), else the estimate.
 */
export function billedInputTokens(
  reported: unknown,
  tokens: { upperBound: number; estimate: number },
): { inputTokens: number; source: UsageSource } {
  if (
    typeof reported === "number" && Number.isSafeInteger(reported) && reported > 0 &&
    reported <= tokens.upperBound * 4 + 10_000
  ) {
    return { inputTokens: reported, source: "upstream" };
  }
  return { inputTokens: Math.min(tokens.estimate, tokens.upperBound), source: "estimate" };
}

/** The channels of `job`'s model in order, or why none can serve it. */
function channelsFor(gateway: Gateway, scope: RequestScope, job: EmbeddingJob) {
  const resolved = resolveModel(gateway.registry, {
    key: scope.key,
    model: job.model,
    kind: "embedding",
  });
  const model = resolved.model;
  const order = channelsTaking(resolved.order, job);
  if (!hasTokenInputs(job)) return { model, order };
  const takingTokens = order.filter((channel) => providerOf(channel).embedding?.takesTokens);
  if (takingTokens.length === 0) {
    throw invalidRequest(
      `The model '${job.model}' is served by channels that take text only; send the input as ` +
        "text, not token ids",
      "input",
    );
  }
  return { model, order: takingTokens };
}

/**
 * The channels of `order` whose upstream model can take `job`; a 400 with the first refusal
 * when none can (nothing is held yet).
 */
function channelsTaking(order: readonly Channel[], job: EmbeddingJob): Channel[] {
  const refusals = order.map((channel) =>
    providerOf(channel).embedding?.refusal?.(upstreamModelName(channel, job.model), job)
  );
  const taking = order.filter((_, index) => refusals[index] === undefined);
  if (taking.length === 0 && refusals[0] !== undefined) {
    throw invalidRequest(refusals[0].message, refusals[0].param);
  }
  return taking;
}

/** Runs `job` over `order` with failover; each attempt goes to `log`. */
export function runEmbeddings(
  gateway: Gateway,
  order: readonly Channel[],
  input: { job: EmbeddingJob; base64: boolean; signal: AbortSignal; log?: AttemptRecord[] },
) {
  return withFailover(
    order,
    (channel, trace) =>
      attemptEmbeddings(channel, input.job, {
        signal: input.signal,
        trace,
        base64: input.base64,
        maxBytes: embeddingAnswerMaxBytes(input.job, gateway.options.upstreamMaxBytes.media),
      }),
    gateway.failover(input.signal, input.log),
  );
}

/**
 * Serves `job`: the vectors in input order (numbers, or base64 where the upstream was asked for
 * it: only when `base64`), billed, with the answer's headers. `ignoredFields` (the request's
 * fields no embedding request takes) are named with those the channel dropped.
 */
export async function serveEmbeddings(
  scope: RequestScope,
  input: { job: EmbeddingJob; base64: boolean; ignoredFields?: string[] },
): Promise<EmbeddingsAnswer> {
  const { gateway, context, key, signal } = scope;
  const { job } = input;
  context.model = job.model;
  const { model, order } = channelsFor(gateway, scope, job);
  const price = model.price as EmbeddingPrice;
  const tier = gateway.priceTierOf(key);
  const tokens = embeddingTokens(job.inputs);
  const bill = new RequestBill(gateway.ledger, {
    key,
    ref: context.id,
    remedy: EMBEDDINGS_REMEDY,
  });
  await bill.hold(embeddingCost(price, tokens.upperBound, tier), { tokens: tokens.estimate });
  let served: Awaited<ReturnType<typeof runEmbeddings>>;
  try {
    served = await runEmbeddings(gateway, order, {
      job,
      base64: input.base64,
      signal,
      log: context.upstreamAttempts,
    });
    await bill.confirmed();
  } catch (error) {
    await bill.release("embedding request failed");
    throw error;
  }
  const { result, channel } = served;
  const { inputTokens, source } = billedInputTokens(result.inputTokens, tokens);
  const ignoredFields = [...input.ignoredFields ?? [], ...result.ignoredFields];
  context.ignoredFields = ignoredFields;
  context.logsLater = true;
  const log = context.finishLater({
    status: 200,
    channelId: channel.id,
    usage: { input_tokens: inputTokens, cached_input_tokens: 0, output_tokens: 0 },
    usageSource: source,
  });
  const pricing = embeddingReceipt(price, inputTokens, tier);
  gateway.track(settleAndLog(bill, { pricing, log, tokens: pricing.units.input_tokens }));
  return {
    // Read only when the interface writes its answer from the vectors (not a passed-on one).
    get vectors() {
      return result.vectors;
    },
    ...(source === "upstream" && result.raw !== undefined && { raw: result.raw }),
    inputTokens,
    usageSource: source,
    headers: {
      "x-gateway-channel": channel.id,
      "x-gateway-usage-source": source,
      ...(ignoredFields.length ? { "x-gateway-ignored-fields": headerList(ignoredFields) } : {}),
    },
  };
}
