import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { GatewayError } from "../../../core/errors.ts";
import { tabHref, tabOf } from "../../../routes/console/section_nav.tsx";

const TABS = [{ id: "key", label: "Key" }, { id: "usage", label: "Usage" }] as const;

Deno.test("section tabs: ?tab= picks a known tab, the first when none; the first is the page itself", () => {
  assertEquals(tabOf(new URL("http://x/console/keys/k"), TABS), "key");
  assertEquals(tabOf(new URL("http://x/console/keys/k?tab="), TABS), "key");
  assertEquals(tabOf(new URL("http://x/console/keys/k?tab=usage"), TABS), "usage");
  assertEquals(tabHref("/console/keys/k", TABS, "key"), "/console/keys/k");
  assertEquals(tabHref("/console/keys/k", TABS, "usage"), "/console/keys/k?tab=usage");
});

Deno.test("section tabs: an unknown tab is a 400 naming the known ones", () => {
  let refused: unknown;
  try {
    tabOf(new URL("http://x/console/keys/k?tab=ledger"), TABS);
  } catch (error) {
    refused = error;
  }
  assertOk(refused instanceof GatewayError, String(refused));
  assertEquals(refused.status, 400);
  assertOk(refused.message.includes("key, usage"), refused.message);
});
