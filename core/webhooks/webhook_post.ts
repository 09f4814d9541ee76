/**
 * One webhook POST, sent to the address the SSRF guard checked (public_address.ts): the name is
 * resolved once, and the connection goes to that address while the request keeps the URL's host
 * name in `Host` and, for https, in SNI and the certificate check. Fetch cannot be told an address,
 * and a second lookup of its own could answer another one (DNS rebinding), so this uses
 * node:http(s), whose `lookup` option hands the socket the checked address. Never follows a
 * redirect.
 */

import http from "node:http";
import https from "node:https";
import { Buffer } from "node:buffer";

export interface WebhookPost {
  headers: Record<string, string>;
  body: string;
  /** Aborts the attempt; the promise rejects with the signal's reason. */
  signal: AbortSignal;
  /** The checked address to connect to; null: the system's resolver decides (guard off). */
  address: string | null;
  /** Extra trusted CA certificates (PEM), for tests with their own TLS receiver. */
  caCerts?: string[];
}

type LookupCallback = (
  error: Error | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/** A `lookup` for node:net that answers `address` whatever name it is asked for. */
function pinnedLookup(address: string) {
  const family = address.includes(":") ? 6 : 4;
  return (_host: string, options: { all?: boolean }, callback: LookupCallback) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** POSTs to `url` and answers the receiver's status code (its body is not read). */
export function postWebhook(url: URL, post: WebhookPost): Promise<number> {
  const secure = url.protocol === "https:";
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise<number>((resolve, reject) => {
    if (post.signal.aborted) return reject(post.signal.reason);
    const request = (secure ? https : http).request({
      hostname,
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: { ...post.headers, "content-length": String(Buffer.byteLength(post.body)) },
      // A fresh connection each time: a pooled one could have been made to another address.
      agent: false,
      ...(post.address === null ? {} : { lookup: pinnedLookup(post.address) }),
      ...(post.caCerts ? { ca: post.caCerts } : {}),
    }, (response) => {
      cleanUp();
      resolve(response.statusCode ?? 0);
      response.destroy();
    });
    const onAbort = () => {
      request.destroy();
      reject(post.signal.reason);
    };
    const cleanUp = () => post.signal.removeEventListener("abort", onAbort);
    post.signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => {
      cleanUp();
      reject(error);
    });
    request.end(post.body);
  });
}
