/**
 * A key's IP allowlist: null lets every address use the key; a list of ranges or single
 * addresses (IPv4 and IPv6) lets only those. Checked wherever a client key is authenticated,
 * against the client address (core/util/client_address.ts); outside it, 403 `ip_not_allowed`.
 */

import { z } from "zod";
import { GatewayError } from "../errors.ts";
import { CidrSet, parseCidr } from "../util/cidr.ts";
import type { KeyRecord } from "./key_schema.ts";

export const MAX_IP_ALLOWLIST = 100;

/** The admin API's field: null, or 1–100 ranges, each named in the 400 when it is not one. */
export const ipAllowlistSchema = z.array(z.string().max(100))
  .min(1, "give at least one range, or null to allow every address")
  .max(MAX_IP_ALLOWLIST, `at most ${MAX_IP_ALLOWLIST} ranges`)
  .superRefine((entries, context) => {
    entries.forEach((entry, index) => {
      const parsed = parseCidr(entry);
      if (!parsed.ok) {
        context.addIssue({
          code: "custom",
          path: [index],
          message: `'${entry}' is not an IP address or CIDR range (${parsed.reason}); ` +
            `write ranges such as 203.0.113.0/24, 2001:db8::/32 or 10.1.2.3`,
        });
      }
    });
  })
  .nullable();

/** Each stored list's ranges, parsed the first time a request needs them. */
const parsedLists = new WeakMap<readonly string[], CidrSet>();

function rangesOf(list: readonly string[]): CidrSet {
  let set = parsedLists.get(list);
  if (!set) {
    set = new CidrSet(list);
    parsedLists.set(list, set);
  }
  return set;
}

/** Throws 403 `ip_not_allowed` unless `key` may be used from `address`. */
export function checkIpAllowlist(
  key: Pick<KeyRecord, "prefix" | "ip_allowlist">,
  address: string,
): void {
  const list = key.ip_allowlist;
  if (!list) return;
  if (rangesOf(list).has(address)) return;
  const seen = address === "unknown"
    ? "the gateway could not tell this request's address, and the key's IP allowlist lets only " +
      "listed addresses use it"
    : `this request came from ${address}, and the key's IP allowlist does not include it`;
  throw new GatewayError(
    "ip_not_allowed",
    403,
    `The API key '${key.prefix}…' may not be used from this address: ${seen}. ` +
      "Call from an allowed address, or ask the key's owner to add this one",
  );
}
