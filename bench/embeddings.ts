/**
 * The embeddings row (BENCH_ONLY=embeddings, and in the full run): POST /v1/embeddings through
 * the gateway (funded key, an `openai` channel, passed through) against the bare forwarder to the
 * same fixed upstream, beside the non-stream chat row measured the same way in the same rounds:
 * throughput ÷ the forwarder at 32 connections, and the p50 added at 1 connection. Floats (the
 * row) and base64 (the openai SDK's default). Then the floor under the float row: the forwarder
 * made to read each answer whole into the isolate and write it back (FORWARDER_BODY=read-whole),
 * which is the least any server that reads an answer (to bill its usage) pays for its bytes.
 */

import { admin, CHAT_PATH, PLAIN_BODY } from "./gateway_checks.ts";
import type { Generator } from "./generator.ts";
import { measureScaling, type ScalingRow } from "./scaling.ts";
import { formatSpread } from "./spread.ts";

export const EMBEDDINGS_PATH = "/v1/embeddings";
export const EMBEDDING_MODEL = "bench-embed";

const INPUT = [
  "What is the capital of France?",
  "Paris is the capital and largest city of France.",
];

/** Two short texts, as a RAG app embeds a query and a chunk, answered as floats. */
export const EMBEDDINGS_BODY = JSON.stringify({
  model: EMBEDDING_MODEL,
  input: INPUT,
  encoding_format: "float",
});

/** The same as base64, as the openai SDK asks by default (its answer is a quarter the size). */
export const EMBEDDINGS_BASE64_BODY = JSON.stringify({
  model: EMBEDDING_MODEL,
  input: INPUT,
  encoding_format: "base64",
});

/** Registers the embedding model and its `openai` channel to the fixed upstream. */
export async function seedEmbeddings(gatewayUrl: string, upstreamUrl: string): Promise<void> {
  await admin(gatewayUrl, "PUT", `/admin/models/${EMBEDDING_MODEL}`, {
    kind: "embedding",
    price: { input: 20_000 },
  }, 200);
  await admin(gatewayUrl, "POST", "/admin/channels", {
    name: "bench-embeddings",
    type: "openai",
    base_url: `${upstreamUrl}/v1`,
    keys: ["sk-bench"],
    models: [EMBEDDING_MODEL],
  }, 201);
}

/** The floor row's name: not the gateway, the forwarder reading each float answer whole. */
export const READING_FLOOR = "floor: forwarder reading the float answer whole (no gateway)";

export interface InterfaceRow {
  name: string;
  /** Gateway ÷ forwarder req/s at 32 connections. */
  at32: ScalingRow;
  /** At 1 connection: its added p50. */
  at1: ScalingRow;
}

/** The chat and embeddings rows, each over `rounds` alternating rounds. */
export async function measureEmbeddingRows(
  generator: Generator,
  servers: { forwarder: string; reader: string; gateway: string; key: string },
  options: { rounds: number; seconds: number; latencySeconds: number; log: (m: string) => void },
): Promise<InterfaceRow[]> {
  const rows: InterfaceRow[] = [];
  for (
    const [name, path, body, measured] of [
      ["chat (non-stream)", CHAT_PATH, PLAIN_BODY, servers.gateway],
      ["embeddings", EMBEDDINGS_PATH, EMBEDDINGS_BODY, servers.gateway],
      ["embeddings (base64)", EMBEDDINGS_PATH, EMBEDDINGS_BASE64_BODY, servers.gateway],
      [READING_FLOOR, EMBEDDINGS_PATH, EMBEDDINGS_BODY, servers.reader],
    ]
  ) {
    const targets = {
      forwarder: servers.forwarder + path,
      gateway: measured + path,
      key: servers.key,
      body,
    };
    const [at32] = await measureScaling(generator, targets, {
      connections: [32],
      seconds: options.seconds,
      rounds: options.rounds,
      log: (line) => options.log(`${name}: ${line}`),
    });
    const [at1] = await measureScaling(generator, targets, {
      connections: [1],
      seconds: options.latencySeconds,
      rounds: options.rounds,
      log: (line) => options.log(`${name}: ${line}`),
    });
    rows.push({ name, at32, at1 });
  }
  return rows;
}

export function formatEmbeddingRows(
  rows: InterfaceRow[],
  options: { rounds: number; seconds: number; latencySeconds: number },
): string {
  return [
    `Embeddings beside chat (funded key, openai channel, passed through), ${options.rounds} ` +
    `alternating rounds; 32 connections for ${options.seconds} s, p50 at 1 connection for ` +
    `${options.latencySeconds} s; median (min to max).`,
    "",
    "| interface | ÷ forwarder @32 | added p50 @1 | errors |",
    "| --- | --- | --- | --- |",
    ...rows.map((row) =>
      `| ${row.name} | ${formatSpread(row.at32.ratio, { digits: 2 })} | ${
        formatSpread(row.at1.addedP50Ms, { digits: 2, unit: " ms" })
      } | ${row.at32.errors + row.at1.errors} |`
    ),
  ].join("\n");
}
