/**
 * The group admin API over HTTP: records with a price multiplier written, read, listed and
 * deleted (audited); every bad multiplier is 400 in the admin envelope and changes nothing.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { assertAdminError } from "../../helpers/admin_error.ts";
import { serverTest, startTestGateway } from "../../helpers/gateway.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test(
  "admin groups: list, read, replace, delete; bad multipliers are 400 and change nothing",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const put = await gw.admin("PUT", "/admin/groups/reseller", { price_multiplier: 0.6 });
    assertEquals(put.status, 200);
    assertEquals([put.body.name, put.body.price_multiplier, put.body.description], [
      "reseller",
      0.6,
      "",
    ]);
    const defaulted = await gw.admin("PUT", "/admin/groups/plain", { description: "as listed" });
    assertEquals(defaulted.body.price_multiplier, 1);
    for (
      const bad of [0, -1, 11, 10.00001, "abc", 1.23456, null, true, [0.8]] as unknown[]
    ) {
      const answer = await gw.admin("PUT", "/admin/groups/reseller", { price_multiplier: bad });
      assertAdminError(answer, 400, "invalid_request");
      assertOk(answer.body.error.message.includes("price_multiplier"), answer.body.error.message);
    }
    assertAdminError(
      await gw.admin("PUT", "/admin/groups/reseller", { price_multiplier: 0.6, extra: 1 }),
      400,
      "invalid_request",
    );
    assertAdminError(await gw.admin("PUT", "/admin/groups/reseller", "[]"), 400, "invalid_request");
    assertEquals((await gw.admin("GET", "/admin/groups/reseller")).body.price_multiplier, 0.6);
    assertEquals(
      (await gw.admin("GET", "/admin/groups")).body.data.map((group: Json) => group.name),
      ["plain", "reseller"],
    );
    assertAdminError(await gw.admin("GET", "/admin/groups/none"), 404, "group_not_found");
    assertAdminError(await gw.admin("DELETE", "/admin/groups/none"), 404, "group_not_found");
    assertAdminError(
      await gw.admin("PUT", "/admin/groups/a%20b", { price_multiplier: 1 }),
      400,
      "invalid_request",
    );
    assertEquals((await gw.admin("DELETE", "/admin/groups/plain")).status, 204);
    const audit = (await gw.admin("GET", "/admin/audit?limit=100")).body.data as Json[];
    const changes = audit.filter((record) => record.target.kind === "group");
    assertOk(
      changes.some((record) => record.method === "PUT" && record.after?.price_multiplier === 0.6),
    );
    assertOk(changes.some((record) => record.method === "DELETE" && record.after === null));
  },
);
