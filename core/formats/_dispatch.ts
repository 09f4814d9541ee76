/**
 * Handler tables for the stream codecs: one small method per event type instead of a long
 * switch. A table is a Map, so it finds only its own keys (an upstream event named "toString"
 * or "__proto__" finds no handler, as it matched no case of a switch) and a lookup stays fast
 * whatever the table's shape.
 */

/** One handler per member of a tagged union, by its `type`; a type without one is skipped. */
export type Handlers<U extends { type: string }, R> = {
  [K in U["type"]]?: (item: Extract<U, { type: K }>) => R;
};

/** A table of handlers by name. */
export function handlerTable<H>(handlers: Record<string, H>): ReadonlyMap<string, H> {
  return new Map(Object.entries(handlers));
}

/** A table of handlers by the `type` of a tagged union's members. */
export function handlersByType<U extends { type: string }, R>(
  handlers: Handlers<U, R>,
): ReadonlyMap<string, (item: U) => R> {
  // A handler takes only its own member of the union; TypeScript cannot see that `item` is one.
  return handlerTable(handlers as unknown as Record<string, (item: U) => R>);
}
