import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { CidrSet, formatRange, parseAddress, parseCidr } from "../../../core/util/cidr.ts";

Deno.test("parseAddress: IPv4 and IPv6 in their usual forms; mapped IPv6 reads as IPv4", () => {
  assertEquals(parseAddress("10.1.2.3"), { version: 4, words: [0x0a010203] });
  assertEquals(parseAddress("255.255.255.255"), { version: 4, words: [0xffffffff] });
  assertEquals(parseAddress("::1"), { version: 6, words: [0, 0, 0, 1] });
  assertEquals(parseAddress("[::1]"), { version: 6, words: [0, 0, 0, 1] });
  assertEquals(parseAddress("::"), { version: 6, words: [0, 0, 0, 0] });
  assertEquals(parseAddress("2001:DB8::8:800:200c:417a"), {
    version: 6,
    words: [0x20010db8, 0, 0x00080800, 0x200c417a],
  });
  assertEquals(parseAddress("1:2:3:4:5:6:7:8")?.words, [0x10002, 0x30004, 0x50006, 0x70008]);
  assertEquals(parseAddress("1:2:3:4:5:6:7::")?.words, [0x10002, 0x30004, 0x50006, 0x70000]);
  assertEquals(parseAddress("fe80::1%eth0")?.words, [0xfe800000, 0, 0, 1]);
  assertEquals(parseAddress("64:ff9b::192.0.2.33")?.words, [0x0064ff9b, 0, 0, 0xc0000221]);
  assertEquals(parseAddress("::ffff:1.2.3.4"), { version: 4, words: [0x01020304] });
  assertEquals(parseAddress("::FFFF:7f00:1"), { version: 4, words: [0x7f000001] });
});

Deno.test("parseAddress: refuses what is not exactly one address", () => {
  for (
    const text of [
      "",
      "unknown",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "01.2.3.4",
      "1.2.3.4 ",
      "1.2.3.4/32",
      "1.2.3.-4",
      ":::",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8::",
      "12345::",
      "g::1",
      ":1::2",
      "1::2:",
      "::1.2.3.4.5",
      "1.2.3.4::",
      "x".repeat(100),
    ]
  ) {
    assertEquals(parseAddress(text), null, text);
  }
});

Deno.test("parseCidr: ranges and single addresses; a clear reason for each refusal", () => {
  const range = (text: string) => {
    const parsed = parseCidr(text);
    if (!parsed.ok) throw new Error(`${text}: ${parsed.reason}`);
    return formatRange(parsed.range);
  };
  assertEquals(range("203.0.113.0/24"), "203.0.113.0/24");
  assertEquals(range("10.1.2.3"), "10.1.2.3/32");
  assertEquals(range("0.0.0.0/0"), "0.0.0.0/0");
  assertEquals(range("2001:db8::/32"), "2001:db8:0:0:0:0:0:0/32");
  assertEquals(range("::1"), "0:0:0:0:0:0:0:1/128");
  assertEquals(range("::/0"), "0:0:0:0:0:0:0:0/0");
  assertEquals(range("::ffff:10.0.0.0/104"), "10.0.0.0/8");
  const reason = (text: string) => {
    const parsed = parseCidr(text);
    return parsed.ok ? "ok" : parsed.reason;
  };
  assertEquals(
    reason("10.1.2.3/8"),
    "the address has bits set past the /8 prefix; did you mean 10.0.0.0/8?",
  );
  assertEquals(reason("2001:db8::1/32").includes("did you mean 2001:db8:0:0:0:0:0:0/32?"), true);
  assertEquals(reason("10.0.0.0/33"), "the prefix length must be at most 32");
  assertEquals(reason("::/129"), "the prefix length must be at most 128");
  assertOk(reason("10.0.0.0/").startsWith("the prefix length after '/'"));
  assertOk(reason("10.0.0.0/-1").startsWith("the prefix length after '/'"));
  assertOk(reason("10.0.0.0/8/8").startsWith("the prefix length after '/'"));
  assertEquals(reason("10.0.0.300/8"), "not an IPv4 or IPv6 address");
  assertEquals(reason("example.com"), "not an IPv4 or IPv6 address");
  assertEquals(reason(" 10.0.0.0/8"), "not an IPv4 or IPv6 address");
  assertEquals(reason("[::1]"), "write the address without brackets or a zone");
  assertEquals(reason("fe80::1%eth0"), "write the address without brackets or a zone");
  assertEquals(reason("::ffff:0.0.0.0/95"), "an IPv4-mapped range needs a prefix of 96 or more");
});

Deno.test("CidrSet: matches inside its ranges only, IPv4 and IPv6 kept apart", () => {
  const set = new CidrSet(["203.0.113.0/24", "10.1.2.3", "2001:db8::/32", "fd00::/8"]);
  assertEquals(set.size, 4);
  const inside = [
    "203.0.113.0",
    "203.0.113.255",
    "10.1.2.3",
    "::ffff:203.0.113.7",
    "2001:db8::1",
    "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
    "[2001:db8::1]",
    "fd12:3456::1",
  ];
  for (const address of inside) assertOk(set.has(address), address);
  const outside = [
    "203.0.112.255",
    "203.0.114.0",
    "10.1.2.4",
    "2001:db9::",
    "2001:db7:ffff::",
    "fe00::1",
    "::1",
    "unknown",
    "",
  ];
  for (const address of outside) assertEquals(set.has(address), false, address);
  assertEquals(set.has(null), false);
});

Deno.test("CidrSet: the widest ranges, and prefixes that end inside a word", () => {
  assertOk(new CidrSet(["0.0.0.0/0"]).has("198.51.100.1"));
  assertEquals(new CidrSet(["0.0.0.0/0"]).has("::1"), false);
  assertOk(new CidrSet(["::/0"]).has("2001:db8::1"));
  // IPv6 rules never match IPv4 peers, even mapped ones.
  assertEquals(new CidrSet(["::/0"]).has("::ffff:127.0.0.1"), false);
  assertOk(new CidrSet(["::ffff:127.0.0.0/104"]).has("127.9.9.9"));
  const odd = new CidrSet(["2001:db8:1234:5600::/55"]);
  assertOk(odd.has("2001:db8:1234:57ff::1"));
  assertEquals(odd.has("2001:db8:1234:5800::"), false);
  const v4 = new CidrSet(["192.168.0.0/23"]);
  assertOk(v4.has("192.168.1.200"));
  assertEquals(v4.has("192.168.2.0"), false);
  let refused = "";
  try {
    new CidrSet(["10.0.0.0/8", "nope"]);
  } catch (error) {
    refused = (error as Error).message;
  }
  assertEquals(refused, "'nope' is not a CIDR range: not an IPv4 or IPv6 address");
});
