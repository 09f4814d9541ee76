/** The SSRF guard of webhook URLs: literals, names, and what names resolve to. */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  deliveryAddress,
  privateAddressProblem,
  webhookUrlProblem,
} from "../../../core/webhooks/public_address.ts";

Deno.test("privateAddressProblem() names every private kind of IPv4 and IPv6", () => {
  const refused: Array<[string, string]> = [
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.255", "CGNAT"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["[::1]", "loopback"],
  ];
  for (const [address, kind] of refused) {
    const problem = privateAddressProblem(address);
    assertOk(problem?.includes(kind), `${address}: ${problem}`);
  }
  for (
    const address of ["8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:1.1.1.1"]
  ) {
    assertEquals(privateAddressProblem(address), null, address);
  }
});

Deno.test("webhookUrlProblem() refuses private literals, localhost names, odd schemes", () => {
  const strict = { allowPrivate: false };
  for (
    const url of [
      "http://127.0.0.1:9000/hook",
      "http://localhost/hook",
      "http://api.localhost/hook",
      "http://[::1]/hook",
      "http://[::ffff:192.168.0.1]/",
      "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.5/",
    ]
  ) {
    assertOk(webhookUrlProblem(url, strict)?.includes("GATEWAY_WEBHOOK_ALLOW_PRIVATE"), url);
  }
  assertOk(webhookUrlProblem("ftp://example.com/", strict)?.includes("http or https"));
  assertOk(webhookUrlProblem("not a url", strict)?.includes("absolute"));
  assertOk(webhookUrlProblem("https://user:pw@example.com/", strict)?.includes("password"));
  assertEquals(webhookUrlProblem("https://hooks.example.com/in", strict), null);
  assertEquals(webhookUrlProblem("http://127.0.0.1:9000/hook", { allowPrivate: true }), null);
});

Deno.test("deliveryAddress() refuses a name that resolves to any private address, and answers the one it checked", async () => {
  const resolve = (host: string) =>
    Promise.resolve(host === "inside.example" ? ["93.184.216.34", "10.0.0.7"] : ["93.184.216.34"]);
  const inside = await deliveryAddress("https://inside.example/hook", {
    allowPrivate: false,
    resolve,
  });
  assertOk("problem" in inside && inside.problem.includes("resolves to 10.0.0.7"));
  assertEquals(
    await deliveryAddress("https://outside.example/hook", { allowPrivate: false, resolve }),
    { address: "93.184.216.34" },
  );
  assertEquals(
    await deliveryAddress("https://[2606:4700::1111]:8443/hook", { allowPrivate: false, resolve }),
    { address: "2606:4700::1111" },
  );
  const unresolved = await deliveryAddress("https://nowhere.example/", {
    allowPrivate: false,
    resolve: () => Promise.reject(new Error("no such name")),
  });
  assertOk(
    "problem" in unresolved && unresolved.problem.includes("cannot resolve nowhere.example"),
  );
  const empty = await deliveryAddress("https://nowhere.example/", {
    allowPrivate: false,
    resolve: () => Promise.resolve([]),
  });
  assertOk("problem" in empty && empty.problem.includes("cannot resolve"));
  let asked = false;
  const allowed = await deliveryAddress("https://inside.example/", {
    allowPrivate: true,
    resolve: () => (asked = true, Promise.resolve([])),
  });
  assertEquals(allowed, { address: null });
  assertEquals(asked, false, "no resolution when private addresses are allowed");
});
