/**
 * A same-format body (a pass-through) without the reasoning another provider signed. A client's
 * history can hold reasoning the gateway labelled with its signer (signature.ts) when an earlier
 * turn went to a channel of another format: a model switched, or a failover. That provider's
 * proof means nothing here and the upstream would refuse the whole request, so it is dropped and
 * named; the body is otherwise untouched (a copy only when something changes). Each format's
 * rules are its own (`<format>/foreign_reasoning.ts`, named by its interface object). Pure.
 */

import { textInterfaceOf } from "./interfaces.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** `body` for an upstream of `format`, and the fields dropped from it. */
export function withoutForeignReasoning(
  format: string,
  body: Json,
): { body: Json; dropped: string[] } {
  return textInterfaceOf(format).withoutForeignReasoning?.(body) ?? { body, dropped: [] };
}
