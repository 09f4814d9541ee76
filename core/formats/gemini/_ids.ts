/** Ids the gateway mints for generate-content answers and function calls. */

import { randomBase62 } from "../../util/ids.ts";

/** A fresh id for a function call Gemini sent without one (ids must differ across turns). */
export function newCallId(): string {
  return `call_${randomBase62(20)}`;
}

export function responseIdOf(id: string): string {
  return id || randomBase62(22);
}
