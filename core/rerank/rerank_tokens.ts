/**
 * Token figures of a rerank, for upstreams that bill by token: an upper bound for the hold (one
 * token per UTF-8 byte of the query and each document, the query counted once per document as a
 * cross-encoder reads it, plus 8 per pair) and the estimate billed when the upstream reports no
 * usage (4 characters per token, same pairing). Pure.
 */

const PER_PAIR = 8;
const encoder = new TextEncoder();

export function rerankTokensUpperBound(query: string, documents: readonly string[]): number {
  const queryBytes = encoder.encode(query).length;
  return documents.reduce(
    (sum, document) => sum + queryBytes + encoder.encode(document).length + PER_PAIR,
    0,
  );
}

export function estimateRerankTokens(query: string, documents: readonly string[]): number {
  return documents.reduce(
    (sum, document) => sum + Math.ceil((query.length + document.length) / 4) + 1,
    0,
  );
}
