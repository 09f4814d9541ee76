import { assertEquals } from "../../helpers/assert.ts";
import { memberKeyInputOf, memberKeyPatchOf } from "../../../routes/console/member_key_fields.ts";

Deno.test("memberKeyInputOf() reads the New key form; operator fields are dropped", () => {
  assertEquals(
    memberKeyInputOf({
      name: " app ",
      group: "vip",
      balance: "5000000",
      models: "smuggled",
      rpm: "60",
      tpm: "",
      cap_day: "0.0001",
      ip_allowlist: "10.0.0.0/8\n192.0.2.1",
      expires_at: "2030-01-02T03:04",
      enabled: "true",
    }, ["gpt-test"]),
    {
      name: "app",
      models: ["gpt-test"],
      rpm: 60,
      spend_limits: { day: 100 },
      ip_allowlist: ["10.0.0.0/8", "192.0.2.1"],
      expires_at: "2030-01-02T03:04:00Z",
      enabled: true,
    },
  );
  assertEquals(memberKeyInputOf({ name: "off" }, []), { name: "off", enabled: false });
});

Deno.test("memberKeyPatchOf() clears an emptied limit and allows every model when none is chosen", () => {
  assertEquals(
    memberKeyPatchOf({
      name: "app",
      rpm: "",
      tpm: "500",
      cap_day: "",
      cap_week: "",
      cap_month: "",
      ip_allowlist: "",
      expires_at: "",
      group: "vip",
    }, []),
    {
      name: "app",
      models: null,
      rpm: null,
      tpm: 500,
      spend_limits: null,
      ip_allowlist: null,
      expires_at: null,
    },
  );
  assertEquals(memberKeyPatchOf({ name: "x" }, ["a", "b"]).models, ["a", "b"]);
});
