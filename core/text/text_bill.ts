/**
 * The money of one text request: hold the most it can cost, then settle what the upstream
 * reports (the gateway's estimate when it reports nothing), or release in full.
 * Billing policy (docs/billing.md): a completed request pays its usage; a client that
 * disconnects pays for what the upstream produced up to then; an upstream failure, before or
 * during the answer, costs nothing.
 */

import { DEFAULT_MAX_OUTPUT_TOKENS, type TextPrice } from "../channels/catalog.ts";
import type { Channel } from "../channels/channel_schema.ts";
import type { CatalogModel } from "../channels/catalog.ts";
import { textCost } from "../billing/text_price.ts";
import { RequestBill } from "../billing/request_bill.ts";
import type { PriceTier } from "../billing/price_tier.ts";
import { textReceipt } from "../billing/receipt.ts";
import { settleAndLog } from "../billing/settle_and_log.ts";
import type { RequestScope } from "../scope.ts";
import type { StreamOutcome } from "../upstream/sse_pump.ts";
import { believableUsage, estimateWithinBounds, type TokenUsage } from "../billing/usage.ts";
import { estimateOutputTokens } from "../formats/openai_chat/estimate_tokens.ts";
import { textInterfaceOf } from "../formats/interfaces.ts";
import type { TextInbound } from "./inbound.ts";

export class TextBill {
  readonly #scope: RequestScope;
  /**
   * Read once for the input's token counts, then let go: a stream lives for minutes, and the
   * parsed request (a coding agent's can be hundreds of KB) must not live with it.
   */
  #inbound: TextInbound | undefined;
  #inputTokens?: { upperBound: number; estimate: number };
  readonly #copies: number;
  readonly #price: TextPrice;
  /** The caller's price tier, fixed for the request: the hold and the settle use the same one. */
  readonly #tier: PriceTier;
  readonly #bill: RequestBill;
  /** Output tokens the request may produce (per choice or candidate); held in full. */
  readonly maxOutput: number;

  constructor(scope: RequestScope, input: { inbound: TextInbound; model: CatalogModel }) {
    this.#scope = scope;
    this.#inbound = input.inbound;
    this.#price = input.model.price as TextPrice;
    this.#tier = scope.gateway.priceTierOf(scope.key);
    this.#bill = new RequestBill(scope.gateway.ledger, {
      key: scope.key,
      ref: scope.context.id,
      remedy: "lower max_tokens",
    });
    this.maxOutput = input.inbound.maxOutputTokens ?? input.model.max_output_tokens ??
      DEFAULT_MAX_OUTPUT_TOKENS;
    this.#copies = answersAskedFor(input.inbound);
  }

  /** The input's token upper bound and estimate, counted once. */
  #input(): { upperBound: number; estimate: number } {
    if (!this.#inputTokens) {
      const inbound = this.#inbound!;
      this.#inputTokens = {
        upperBound: inbound.inputUpperBound(),
        estimate: inbound.inputEstimate(),
      };
      this.#inbound = undefined;
    }
    return this.#inputTokens;
  }

  /**
   * Holds the most the request can cost: its input's upper bound and every output token; and,
   * against the key's tokens per minute, its input estimate and every output token.
   */
  hold(): Promise<void> {
    const maxOutput = this.#maxOutputTokens();
    return this.#bill.hold(
      textCost(this.#price, {
        input_tokens: this.#input().upperBound,
        cached_input_tokens: 0,
        output_tokens: maxOutput,
      }, this.#tier),
      { tokens: this.#input().estimate + maxOutput },
    );
  }

  /** Every output token the request allows, over all its choices or candidates. */
  #maxOutputTokens(): number {
    return this.maxOutput * this.#copies;
  }

  /** Waits for the hold's commit (402 if it failed). */
  confirmed(): Promise<void> {
    return this.#bill.confirmed();
  }

  /** Gives the hold back: nothing was delivered. */
  release(reason: string): Promise<void> {
    return this.#bill.release(reason);
  }

  /** Usage estimated from the request and the output the client received. */
  #estimate(outputChars: number): TokenUsage {
    return {
      input_tokens: this.#input().estimate,
      cached_input_tokens: 0,
      output_tokens: estimateOutputTokens(outputChars),
    };
  }

  /**
   * Settles the delivered answer (off the response path) and logs the request: the upstream's
   * usage when it sent one, else the estimate from `outputChars`.
   */
  settle(
    channel: Channel,
    delivered: { outcome: StreamOutcome; usage: TokenUsage | undefined; outputChars: number },
  ): void {
    const { outcome } = delivered;
    const { gateway, context } = this.#scope;
    const bounds = {
      maxInputTokens: this.#input().upperBound,
      maxOutputTokens: this.#maxOutputTokens(),
      outputChars: delivered.outputChars,
    };
    const reported = believableUsage(delivered.usage, bounds);
    const usage = reported ?? estimateWithinBounds(this.#estimate(delivered.outputChars), bounds);
    const log = context.finishLater({
      status: 200,
      channelId: channel.id,
      usage,
      usageSource: reported ? "upstream" : "estimate",
      outcome,
    });
    gateway.track(settleAndLog(this.#bill, {
      pricing: textReceipt(this.#price, usage, this.#tier),
      tokens: usage.input_tokens + usage.output_tokens,
      log,
    }));
  }

  /**
   * A stream the upstream broke before its end (whatever usage it sent before): released in
   * full, logged as interrupted.
   */
  releaseInterrupted(channel: Channel, outputChars: number): void {
    const { gateway, context } = this.#scope;
    const log = context.finishLater({
      status: 200,
      channelId: channel.id,
      outcome: "upstream_error",
      errorCode: "upstream_stream_interrupted",
      usage: this.#estimate(outputChars),
      usageSource: "estimate",
    });
    const bill = this.#bill;
    gateway.track((async () => {
      await bill.release("upstream failed mid-stream");
      log();
    })());
  }
}

/**
 * Answers the request asks for (chat `n`, Gemini `candidateCount`); each may produce every
 * output token, and the upstream bills the output of all of them. Both are refused outside
 * their ranges before a bill is made; each is served only by an upstream of its own format.
 */
function answersAskedFor(inbound: TextInbound): number {
  const count = textInterfaceOf(inbound.format).answersAskedFor?.(inbound.body);
  return count !== undefined && Number.isSafeInteger(count) && count > 1 ? count : 1;
}
