/**
 * The client address of a request, as the auth throttle, the audit log and key IP allowlists see
 * it: the connection's peer, unless a proxy in front is trusted to name the client in
 * `x-forwarded-for`. Two ways to trust one (they exclude each other):
 *
 * - GATEWAY_TRUSTED_PROXIES, a list of ranges: the header is read only when the peer is in them,
 *   and from the right, skipping addresses in them; the right-most address outside them is the
 *   client (what a trusted proxy saw; anything further left is whatever the client wrote).
 * - GATEWAY_TRUST_PROXY=N: every peer is taken for the Nth proxy from the client; the Nth address
 *   from the right is the client. Safe only when nothing reaches the gateway but the proxy.
 */

import { CidrSet, parseAddress } from "./cidr.ts";

/** Which proxies' `x-forwarded-for` is believed. */
export interface ProxyTrust {
  /** GATEWAY_TRUST_PROXY: proxies in front, each believed; 0 trusts none. */
  trustProxyHops: number;
  /** GATEWAY_TRUSTED_PROXIES: only peers in these ranges are believed. */
  trustedProxies?: CidrSet;
}

export const NO_PROXY: ProxyTrust = { trustProxyHops: 0 };

/** What a request's address is read from. */
export interface AddressFacts {
  /** The connection's peer; undefined when unknown (the app called without a connection). */
  peer: string | undefined;
  forwardedFor?: string | null;
}

/** The client's address; `unknown` when the peer is unknown and no trusted header says. */
export function clientAddress({ peer, forwardedFor }: AddressFacts, trust: ProxyTrust): string {
  const { trustedProxies, trustProxyHops } = trust;
  if (trustedProxies) return peer ? behindTrusted(peer, forwardedFor, trustedProxies) : "unknown";
  if (trustProxyHops > 0 && forwardedFor) {
    const hops = forwardedFor.split(",").map((part) => part.trim());
    const chosen = hops[hops.length - trustProxyHops];
    if (chosen && parseAddress(chosen)) return chosen;
  }
  return peer ?? "unknown";
}

/**
 * Walks `x-forwarded-for` from the right while each address is a trusted proxy; the first one
 * that is not is the client. An unreadable entry ends the walk at the last trusted proxy (what
 * it wrote cannot be believed), and a header of trusted proxies only names its left-most.
 */
function behindTrusted(
  peer: string,
  forwardedFor: string | null | undefined,
  trusted: CidrSet,
): string {
  if (!trusted.has(peer) || !forwardedFor) return peer;
  let client = peer;
  const hops = forwardedFor.split(",");
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index].trim();
    const address = parseAddress(hop);
    if (!address) return client;
    client = hop;
    if (!trusted.has(address)) return client;
  }
  return client;
}

/** Reads GATEWAY_TRUST_PROXY: unset, "" or "0" trusts none; "1" (or "true") one proxy; N hops. */
export function trustProxyHopsOf(value: string | undefined): number {
  if (value === undefined || value === "" || value === "0" || value === "false") return 0;
  if (value === "true") return 1;
  const hops = Number(value);
  if (!Number.isInteger(hops) || hops < 0 || hops > 10) {
    throw new Error(
      `GATEWAY_TRUST_PROXY must be 0, 1 (or true) or a hop count up to 10, got '${value}'`,
    );
  }
  return hops;
}

/** Reads GATEWAY_TRUSTED_PROXIES: ranges or addresses separated by commas or spaces. */
export function trustedProxiesOf(value: string | undefined): string[] {
  const entries = (value ?? "").split(/[\s,]+/).filter(Boolean);
  try {
    new CidrSet(entries);
  } catch (error) {
    throw new Error(`GATEWAY_TRUSTED_PROXIES: ${(error as Error).message}`);
  }
  return entries;
}
