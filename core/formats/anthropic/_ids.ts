/** Ids the gateway gives messages-API messages. */

import { randomBase62 } from "../../util/ids.ts";

export function newMessageId(id: string): string {
  return id.startsWith("msg_") ? id : `msg_${id || randomBase62(24)}`;
}
