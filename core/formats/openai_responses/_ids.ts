/** Ids the gateway mints for responses-API objects. */

import { randomBase62 } from "../../util/ids.ts";

export function newItemId(prefix: string): string {
  return `${prefix}_${randomBase62(24)}`;
}
