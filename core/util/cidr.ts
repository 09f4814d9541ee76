/**
 * IP addresses and CIDR ranges, IPv4 and IPv6: parsed once into numbers, then matched with a few
 * integer operations. An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a dual-stack socket
 * reports for an IPv4 peer) is read as the IPv4 address it carries, and a range written in that
 * form as the IPv4 range, so IPv4 rules match such peers and IPv6 rules never match IPv4 ones.
 */

/** An address as 32-bit words: one for IPv4, four (most significant first) for IPv6. */
export interface IpAddress {
  version: 4 | 6;
  words: readonly number[];
}

/** A range: the network's words and how many leading bits of an address must equal them. */
export interface CidrRange extends IpAddress {
  bits: number;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

function ipv4Word(text: string): number | null {
  const parts = IPV4.exec(text);
  if (!parts) return null;
  let word = 0;
  for (const part of parts.slice(1)) {
    // A leading zero is refused: some readers take "010" as octal 8.
    if (part.length > 1 && part.startsWith("0")) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    word = word * 256 + octet;
  }
  return word;
}

/** The eight 16-bit groups of an IPv6 address (an IPv4 tail counts as two), or null. */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (half: string, last: boolean): number[] | null => {
    if (half === "") return [];
    const out: number[] = [];
    const parts = half.split(":");
    for (const [index, part] of parts.entries()) {
      if (last && index === parts.length - 1 && part.includes(".")) {
        const word = ipv4Word(part);
        if (word === null) return null;
        out.push(word >>> 16, word & 0xffff);
      } else if (HEX_GROUP.test(part)) out.push(parseInt(part, 16));
      else return null;
    }
    return out;
  };
  const head = groupsOf(halves[0], halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1], true) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  // "::" stands for at least one group of zeros.
  return missing >= 1 ? [...head, ...Array(missing).fill(0), ...tail] : null;
}

function isIpv4Mapped(words: readonly number[]): boolean {
  return words[0] === 0 && words[1] === 0 && words[2] === 0xffff;
}

/**
 * Reads an address: dotted IPv4, or IPv6 in any standard form, optionally in brackets and with a
 * zone (`fe80::1%eth0`, dropped). An IPv4-mapped IPv6 address is read as IPv4. Null if not one.
 */
export function parseAddress(text: string): IpAddress | null {
  if (text.length > 64) return null;
  let plain = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!plain.includes(":")) {
    const word = ipv4Word(plain);
    return word === null ? null : { version: 4, words: [word] };
  }
  plain = plain.replace(/%[0-9a-z_.-]{1,32}$/i, "");
  const groups = ipv6Groups(plain);
  if (!groups) return null;
  const words = [0, 2, 4, 6].map((i) => (groups[i] * 0x10000 + groups[i + 1]) >>> 0);
  return isIpv4Mapped(words) ? { version: 4, words: [words[3]] } : { version: 6, words };
}

/** The mask of the `index`th word of a `bits`-long prefix. */
function wordMask(bits: number, index: number): number {
  const inWord = Math.min(32, Math.max(0, bits - 32 * index));
  return inWord === 0 ? 0 : (0xffffffff << (32 - inWord)) >>> 0;
}

/** Why `text` is not a range; or the range. */
export type CidrParse = { ok: true; range: CidrRange } | { ok: false; reason: string };

/**
 * Reads a range: `address/bits`, or a single address (a /32 or /128). Refuses a range whose
 * address has bits set past the prefix (`10.1.2.3/8`), naming the range it probably meant.
 */
export function parseCidr(text: string): CidrParse {
  const slash = text.indexOf("/");
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const bitsText = slash === -1 ? undefined : text.slice(slash + 1);
  if (addressText.startsWith("[") || addressText.includes("%")) {
    return { ok: false, reason: "write the address without brackets or a zone" };
  }
  const address = parseAddress(addressText);
  if (!address) return { ok: false, reason: "not an IPv4 or IPv6 address" };
  const written = addressText.includes(":") ? 128 : 32;
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) {
    return {
      ok: false,
      reason: `the prefix length after '/' must be a number from 0 to ${written}`,
    };
  }
  let bits = bitsText === undefined ? written : Number(bitsText);
  if (bits > written) {
    return { ok: false, reason: `the prefix length must be at most ${written}` };
  }
  // An IPv4-mapped range (::ffff:10.0.0.0/104) is the IPv4 range it covers.
  if (written === 128 && address.version === 4) {
    if (bits < 96) {
      return { ok: false, reason: "an IPv4-mapped range needs a prefix of 96 or more" };
    }
    bits -= 96;
  }
  const words = address.words.map((word, index) => (word & wordMask(bits, index)) >>> 0);
  if (words.some((word, index) => word !== address.words[index])) {
    const network = formatRange({ version: address.version, words, bits });
    return {
      ok: false,
      reason: `the address has bits set past the /${bits} prefix; did you mean ${network}?`,
    };
  }
  return { ok: true, range: { version: address.version, words, bits } };
}

/** Whether `address` is inside `range`. */
export function inRange(address: IpAddress, range: CidrRange): boolean {
  if (address.version !== range.version) return false;
  for (let index = 0; index < range.words.length; index++) {
    const mask = wordMask(range.bits, index);
    if (mask === 0) return true;
    if (((address.words[index] ^ range.words[index]) & mask) !== 0) return false;
  }
  return true;
}

/** A range written back (IPv6 in full groups, without `::` compression). */
export function formatRange(range: CidrRange): string {
  if (range.version === 4) {
    const word = range.words[0];
    return `${[24, 16, 8, 0].map((shift) => (word >>> shift) & 255).join(".")}/${range.bits}`;
  }
  const groups = range.words.flatMap((word) => [word >>> 16, word & 0xffff]);
  return `${groups.map((group) => group.toString(16)).join(":")}/${range.bits}`;
}

/** A list of ranges, parsed once, asked about many addresses. */
export class CidrSet {
  readonly #ranges: CidrRange[];

  /** Throws naming the first entry that is not a range. */
  constructor(entries: readonly string[]) {
    this.#ranges = entries.map((entry) => {
      const parsed = parseCidr(entry);
      if (!parsed.ok) throw new Error(`'${entry}' is not a CIDR range: ${parsed.reason}`);
      return parsed.range;
    });
  }

  get size(): number {
    return this.#ranges.length;
  }

  /** Whether `address` (text, as a peer or x-forwarded-for gives it) is in any range. */
  has(address: string | IpAddress | null): boolean {
    const parsed = typeof address === "string" ? parseAddress(address) : address;
    return parsed !== null && this.#ranges.some((range) => inRange(parsed, range));
  }
}
