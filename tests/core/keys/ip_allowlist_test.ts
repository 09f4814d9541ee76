import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { GatewayError } from "../../../core/errors.ts";
import { checkIpAllowlist, ipAllowlistSchema } from "../../../core/keys/ip_allowlist.ts";
import { keyInputSchema, keyPatchSchema, publicKey } from "../../../core/keys/key_schema.ts";

function refusal(key: { prefix: string; ip_allowlist?: string[] | null }, address: string) {
  try {
    checkIpAllowlist(key, address);
    return null;
  } catch (error) {
    assertOk(error instanceof GatewayError);
    return error;
  }
}

Deno.test("checkIpAllowlist: null or absent allows all; a list only its ranges, else 403", () => {
  assertEquals(refusal({ prefix: "sk-gw-a" }, "198.51.100.1"), null);
  assertEquals(refusal({ prefix: "sk-gw-a", ip_allowlist: null }, "unknown"), null);
  const key = { prefix: "sk-gw-abcd", ip_allowlist: ["203.0.113.0/24", "2001:db8::/32"] };
  assertEquals(refusal(key, "203.0.113.77"), null);
  assertEquals(refusal(key, "::ffff:203.0.113.77"), null);
  assertEquals(refusal(key, "2001:db8:1::5"), null);
  const refused = refusal(key, "198.51.100.1")!;
  assertEquals([refused.status, refused.code, refused.kind], [403, "ip_not_allowed", "permission"]);
  assertOk(refused.message.includes("198.51.100.1"), refused.message);
  assertOk(refused.message.includes("'sk-gw-abcd…'"), refused.message);
  assertOk(refusal(key, "unknown")!.message.includes("could not tell"));
});

Deno.test("ipAllowlistSchema: null or 1–100 ranges; each bad entry named by its index", () => {
  assertEquals(ipAllowlistSchema.parse(null), null);
  assertEquals(ipAllowlistSchema.parse(["10.0.0.0/8", "::1"]), ["10.0.0.0/8", "::1"]);
  const issues = (value: unknown) =>
    ipAllowlistSchema.safeParse(value).error?.issues.map((issue) => [issue.path, issue.message]);
  const bad = issues(["10.0.0.0/8", "10.0.0.0/33", "x"])!;
  assertEquals(bad.map(([path]) => path), [[1], [2]]);
  assertOk(String(bad[0][1]).startsWith("'10.0.0.0/33' is not an IP address or CIDR range"));
  assertEquals(issues([])!.length, 1);
  assertEquals(issues(Array(101).fill("10.0.0.1"))!.length, 1);
  assertEquals(issues(Array(100).fill("10.0.0.1")), undefined);
});

Deno.test("key schema: ip_allowlist defaults to null, a PATCH leaves it alone unless named", () => {
  assertEquals(keyInputSchema.parse({ name: "k" }).ip_allowlist, null);
  assertEquals("ip_allowlist" in keyPatchSchema.parse({ name: "k" }), false);
  assertEquals(keyPatchSchema.parse({ ip_allowlist: null }).ip_allowlist, null);
  const record = {
    id: "key_1",
    name: "k",
    group: "default",
    models: null,
    credit_limit: 0,
    unlimited: false,
    expires_at: null,
    rpm: null,
    enabled: true,
    prefix: "sk-gw-1",
    hash: "h",
    created_at: "",
    updated_at: "",
  };
  // A key stored before the field existed shows null.
  assertEquals(publicKey(record, 0).ip_allowlist, null);
});
