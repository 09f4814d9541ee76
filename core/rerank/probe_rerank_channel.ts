/**
 * The test of a rerank channel: one real rerank of two short documents, which proves the key,
 * the address, the path style and the model, and that the answer reads. The upstream bills the
 * operator for it (one search unit, or a few dozen tokens); the gateway bills nothing.
 */

import type { Channel } from "../channels/channel_schema.ts";
import type { Gateway } from "../gateway.ts";
import { type ChannelProbeResult, runProbe } from "../upstream/channel_probe.ts";
import { attemptRerank } from "./serve_rerank.ts";

const PROBE_CALL = {
  query: "Which one is a colour?",
  documents: ["red", "seven"],
  topN: 2,
};

/** Tests `channel`'s rerank model `model` with one rerank of two documents. */
export function probeRerankChannel(
  gateway: Gateway,
  input: { channel: Channel; model: string; signal: AbortSignal },
): Promise<ChannelProbeResult> {
  const { channel, model, signal } = input;
  return runProbe(
    channel,
    {
      model,
      call: `one rerank of 2 documents at ${channel.rerank_path ?? "/v1/rerank"} ` +
        "(billed upstream, not by the gateway)",
    },
    async (channel, trace) => {
      await attemptRerank(gateway, channel, { model, call: PROBE_CALL, signal, trace });
    },
    { metrics: gateway.metrics, requestLog: gateway.requestLog, signal },
  );
}
