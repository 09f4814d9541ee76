/**
 * Handler tables for the stream encoders: one small method per neutral event type instead of a
 * long switch. A table is a Map, so it finds only its own keys and a lookup stays fast whatever
 * the encoder. (The stream decoders dispatch with a short switch instead: the type names they
 * read are fresh strings parsed from the upstream, and comparing one costs less than hashing it.)
 */

/** One handler per member of a tagged union, by its `type`; a type without one is skipped. */
export type Handlers<U extends { type: string }, R> = {
  [K in U["type"]]?: (item: Extract<U, { type: K }>) => R;
};

/** The handlers as a Map by type, for `table.get(item.type)?.(item)`. */
export function handlersByType<U extends { type: string }, R>(
  handlers: Handlers<U, R>,
): ReadonlyMap<string, (item: U) => R> {
  // A handler takes only its own member of the union; TypeScript cannot see that `item` is one.
  return new Map(Object.entries(handlers as unknown as Record<string, (item: U) => R>));
}
