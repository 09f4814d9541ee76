/**
 * The SSRF guard of webhook URLs: a receiver must be a public http(s) address. Refused: loopback,
 * private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10), CGNAT (100.64/10),
 * unique-local (fc00::/7), unspecified, multicast, broadcast and the IPv4 addresses that IPv6
 * embeds (mapped, NAT64), and the names `localhost` and `*.localhost`. A URL is checked when it
 * is registered (its literal) and again before every attempt (every address its name resolves
 * to), so a name that later points inside is still refused; the attempt then connects to the
 * address checked, never to a second lookup's (DNS rebinding). GATEWAY_WEBHOOK_ALLOW_PRIVATE=1
 * lifts the guard (tests, receivers on a private network).
 */

/** Why IPv4 `address` (dotted quad) is not public, or null. */
function ipv4Problem(address: string): string | null {
  const parts = address.split(".").map(Number);
  const [a, b] = parts;
  if (a === 127) return "a loopback address";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) {
    return "a private address";
  }
  if (a === 169 && b === 254) return "a link-local address";
  if (a === 100 && b >= 64 && b <= 127) return "a shared (CGNAT) address";
  if (a === 0) return "an unspecified address";
  if (a >= 224 && a <= 239) return "a multicast address";
  if (a >= 240) return "a reserved address";
  return null;
}

function isIpv4(text: string): boolean {
  const parts = text.split(".");
  return parts.length === 4 &&
    parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

/** The eight 16-bit groups of IPv6 `address`, or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(":");
  const v4 = text.slice(lastColon + 1);
  if (lastColon >= 0 && isIpv4(v4)) {
    const [a, b, c, d] = v4.split(".").map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${
      ((c << 8) | d).toString(16)
    }`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const items = part.split(":");
    if (!items.every((item) => /^[0-9a-f]{1,4}$/.test(item))) return null;
    return items.map((item) => parseInt(item, 16));
  };
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array(missing).fill(0), ...tail] : null;
}

/** Why IPv6 `groups` are not a public address, or null. */
function ipv6Problem(groups: number[]): string | null {
  const embeddedV4 = () =>
    `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  if (groups.every((group) => group === 0)) return "an unspecified address";
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1) {
    return "a loopback address";
  }
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64): the IPv4 decides.
  const mapped = groups.slice(0, 5).every((group) => group === 0) &&
    (groups[5] === 0xffff || groups[5] === 0);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b &&
    groups.slice(2, 6).every((group) => group === 0);
  if (mapped || nat64) {
    const problem = ipv4Problem(embeddedV4());
    return problem ? `${problem} (inside an IPv6 address)` : null;
  }
  if ((groups[0] & 0xfe00) === 0xfc00) return "a unique-local address";
  if ((groups[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((groups[0] & 0xff00) === 0xff00) return "a multicast address";
  return null;
}

/** Why IP `address` (v4 or v6, brackets allowed) is not public, or null; "not an IP" is null. */
export function privateAddressProblem(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIpv4(bare)) return ipv4Problem(bare);
  const groups = bare.includes(":") ? ipv6Groups(bare) : null;
  return groups ? ipv6Problem(groups) : null;
}

/** Whether `host` (a URL's hostname) is an IP literal. */
export function isIpLiteral(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return isIpv4(bare) || (bare.includes(":") && ipv6Groups(bare) !== null);
}

/**
 * Why `url` may not receive webhooks, or null: it must be absolute http(s), without user info,
 * and (unless `allowPrivate`) its host must not be a private literal or a localhost name.
 */
export function webhookUrlProblem(url: string, options: { allowPrivate: boolean }): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute http or https URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `must be http or https, not ${parsed.protocol.replace(/:$/, "")}`;
  }
  if (parsed.username || parsed.password) return "must not hold a user name or password";
  if (url.length > 2048) return "must be at most 2048 characters";
  if (options.allowPrivate) return null;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) {
    return `points at ${host}, a loopback name (set GATEWAY_WEBHOOK_ALLOW_PRIVATE=1 to allow)`;
  }
  const problem = privateAddressProblem(host);
  return problem
    ? `points at ${host}, ${problem} (set GATEWAY_WEBHOOK_ALLOW_PRIVATE=1 to allow)`
    : null;
}

/** Resolves a name to its addresses (Deno.resolveDns for A and AAAA in production). */
export type Resolver = (host: string, signal?: AbortSignal) => Promise<string[]>;

/** Every A and AAAA address of `host`; a name with neither throws. */
export const resolveWithDns: Resolver = async (host, signal) => {
  const lookups = await Promise.allSettled([
    Deno.resolveDns(host, "A", { signal }),
    Deno.resolveDns(host, "AAAA", { signal }),
  ]);
  const addresses = lookups.flatMap((lookup) => lookup.status === "fulfilled" ? lookup.value : []);
  if (addresses.length === 0) throw new Error(`${host} has no A or AAAA record`);
  return addresses;
};

/**
 * Where a delivery to `url` connects now, or why it may not be sent. The literal checks first;
 * then a name is resolved once and every address it has must be public; the answer is the first,
 * and the POST connects to it (webhook_post.ts), so a second lookup can never bring it somewhere
 * else (DNS rebinding). A literal host is its own address. With private addresses allowed there is
 * nothing to check: `address` is null and the system's resolver decides, as for any request. A
 * name that does not resolve is a failed attempt too.
 */
export async function deliveryAddress(
  url: string,
  options: { allowPrivate: boolean; resolve?: Resolver; signal?: AbortSignal },
): Promise<{ address: string | null } | { problem: string }> {
  const problem = webhookUrlProblem(url, options);
  if (problem) return { problem };
  if (options.allowPrivate) return { address: null };
  const host = new URL(url).hostname.replace(/\.$/, "");
  if (isIpLiteral(host)) return { address: host.replace(/^\[|\]$/g, "") };
  let addresses: string[];
  try {
    addresses = await (options.resolve ?? resolveWithDns)(host, options.signal);
  } catch (error) {
    return {
      problem: `cannot resolve ${host}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (addresses.length === 0) return { problem: `cannot resolve ${host}: no address` };
  for (const address of addresses) {
    const refused = privateAddressProblem(address);
    if (refused) {
      return {
        problem:
          `${host} resolves to ${address}, ${refused} (set GATEWAY_WEBHOOK_ALLOW_PRIVATE=1 to allow)`,
      };
    }
  }
  return { address: addresses[0] };
}
