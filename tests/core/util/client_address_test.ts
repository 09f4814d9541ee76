import { assertEquals, assertThrows } from "../../helpers/assert.ts";
import {
  clientAddress,
  trustedProxiesOf,
  trustProxyHopsOf,
} from "../../../core/util/client_address.ts";
import { CidrSet } from "../../../core/util/cidr.ts";

Deno.test("clientAddress: the peer, unless GATEWAY_TRUST_PROXY's hops say otherwise", () => {
  const forwardedFor = "6.6.6.6, 203.0.113.9, 10.0.0.5";
  const hops = (trustProxyHops: number, header = forwardedFor) =>
    clientAddress({ peer: "10.0.0.9", forwardedFor: header }, { trustProxyHops });
  assertEquals(hops(0), "10.0.0.9");
  assertEquals(hops(1), "10.0.0.5");
  assertEquals(hops(2), "203.0.113.9");
  assertEquals(hops(9), "10.0.0.9");
  assertEquals(hops(1, "<script>"), "10.0.0.9");
  assertEquals(hops(1, "1.2.3.4, not-an-address"), "10.0.0.9");
  assertEquals(clientAddress({ peer: undefined }, { trustProxyHops: 0 }), "unknown");
  assertEquals([undefined, "", "0", "1", "true", "2"].map(trustProxyHopsOf), [0, 0, 0, 1, 1, 2]);
  assertThrows(() => trustProxyHopsOf("yes"));
});

Deno.test("clientAddress: GATEWAY_TRUSTED_PROXIES believes only listed peers, right to left", () => {
  const trust = { trustProxyHops: 0, trustedProxies: new CidrSet(["10.0.0.0/8", "fd00::/8"]) };
  const from = (peer: string | undefined, forwardedFor?: string) =>
    clientAddress({ peer, forwardedFor }, trust);
  // An untrusted peer's header is never read, whatever it says.
  assertEquals(from("198.51.100.4", "10.0.0.1"), "198.51.100.4");
  assertEquals(from("198.51.100.4", "203.0.113.9"), "198.51.100.4");
  // A trusted peer: the right-most address that is not a trusted proxy is the client.
  assertEquals(from("10.0.0.9", "203.0.113.9"), "203.0.113.9");
  assertEquals(from("10.0.0.9", "6.6.6.6, 203.0.113.9"), "203.0.113.9");
  assertEquals(from("10.0.0.9", "6.6.6.6, 203.0.113.9, 10.1.1.1, 10.2.2.2"), "203.0.113.9");
  assertEquals(from("::ffff:10.0.0.9", "2001:db8::7"), "2001:db8::7");
  assertEquals(from("fd00::9", " 203.0.113.9 "), "203.0.113.9");
  // No header, or only trusted proxies in it: the left-most proxy known.
  assertEquals(from("10.0.0.9"), "10.0.0.9");
  assertEquals(from("10.0.0.9", "10.3.3.3, 10.2.2.2"), "10.3.3.3");
  // An unreadable entry ends the walk at the last trusted proxy: what it wrote is not believed.
  assertEquals(from("10.0.0.9", "203.0.113.9, junk"), "10.0.0.9");
  assertEquals(from("10.0.0.9", "203.0.113.9, , 10.2.2.2"), "10.2.2.2");
  assertEquals(from("10.0.0.9", "203.0.113.9:443"), "10.0.0.9");
  assertEquals(from(undefined, "203.0.113.9"), "unknown");
});

Deno.test("trustedProxiesOf: ranges separated by commas or spaces; a bad one named", () => {
  assertEquals(trustedProxiesOf(undefined), []);
  assertEquals(trustedProxiesOf(" 10.0.0.0/8, fd00::/8  192.0.2.1 "), [
    "10.0.0.0/8",
    "fd00::/8",
    "192.0.2.1",
  ]);
  let message = "";
  try {
    trustedProxiesOf("10.0.0.0/8,10.0.0.1/8");
  } catch (error) {
    message = (error as Error).message;
  }
  assertEquals(
    message,
    "GATEWAY_TRUSTED_PROXIES: '10.0.0.1/8' is not a CIDR range: the address has bits set past " +
      "the /8 prefix; did you mean 10.0.0.0/8?",
  );
});
