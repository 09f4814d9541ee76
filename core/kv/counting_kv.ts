/**
 * A KV backend that reports each operation it performs (`get`, `getMany`, `set`, `delete`, `list`,
 * `commit`, `enqueue`) and each mutation inside an atomic commit (`atomic.set`, `atomic.sum`,
 * `atomic.delete`, `atomic.check`), for measuring KV work per request (`GATEWAY_KV_COUNT_OPS=1`,
 * used by `deno task bench`). Off by default: the plain Kv is used and nothing is counted.
 */

import type { KvBackend } from "./kv_backend.ts";

const COUNTED = new Set(["get", "getMany", "set", "delete", "list", "enqueue"]);
const COUNTED_IN_ATOMIC = ["set", "sum", "delete", "check", "enqueue", "min", "max"] as const;

/** `kv`, with `onOperation(name)` called for each operation started. */
export function countingKv<Kv extends KvBackend>(
  kv: Kv,
  onOperation: (name: string) => void,
): Kv {
  return new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "atomic") {
        return () => {
          const atomic = target.atomic();
          const commit = atomic.commit.bind(atomic);
          for (const name of COUNTED_IN_ATOMIC) {
            // deno-lint-ignore no-explicit-any
            const method = (atomic as any)[name]?.bind(atomic);
            if (!method) continue; // min and max are not part of every backend
            // deno-lint-ignore no-explicit-any
            (atomic as any)[name] = (...args: unknown[]) => {
              onOperation(`atomic.${name}`);
              method(...args);
              return atomic;
            };
          }
          atomic.commit = () => {
            onOperation("commit");
            return commit();
          };
          return atomic;
        };
      }
      if (typeof property === "string" && COUNTED.has(property)) {
        return (...args: unknown[]) => {
          onOperation(property);
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}
