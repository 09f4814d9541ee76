/**
 * The account's models and the price it pays: the members' Models page and `/v1/account/models`
 * show the catalog price and the price at the account's group's multiplier.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { MODELS, startMemberArea } from "../../helpers/member_area.ts";
import { tokenFromSettings } from "../../helpers/account_api.ts";

Deno.test(
  "member models: the Models page and /v1/account/models show the price the account pays at its tier",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    const owner = await area.member("kim@example.com", "owner");

    // At ×1 the page says the catalog price is paid: input 1 unit a token is 1.000000 a million.
    const base = await (await owner.get("/console/account/models")).text();
    assertOk(base.includes("Your account pays the catalog price."), "×1");
    for (const model of MODELS) assertOk(base.includes(`<code>${model}</code>`), model);
    assertOk(base.includes("input $1.000000"), base);

    // The account moves to group vip at ×0.8; the models and the channel serve vip too.
    for (const model of MODELS) {
      await gw.admin("PATCH", `/admin/models/${model}`, { groups: ["default", "vip"] });
    }
    const channel = (await gw.admin("GET", "/admin/channels")).body.data[0];
    await gw.admin("PATCH", `/admin/channels/${channel.id}`, { groups: ["default", "vip"] });
    assertEquals(
      (await gw.admin("PUT", "/admin/groups/vip", { price_multiplier: 0.8 })).status,
      200,
    );
    await gw.admin("PATCH", `/admin/accounts/${area.accountId}`, { group: "vip" });

    const page = await (await owner.get("/console/account/models")).text();
    assertOk(page.includes("group vip pays ×0.8"), "the tier is said");
    assertOk(page.includes("input $0.800000"), "the price paid");
    assertOk(page.includes("Catalog price"), "beside the catalog price");

    const token = await tokenFromSettings(owner);
    const listed = await fetch(`${gw.url}/v1/account/models`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assertEquals(listed.status, 200);
    const { data } = await listed.json();
    const first = data.find((model: { id: string }) => model.id === MODELS[0]);
    assertEquals(first.price_multiplier, 0.8);
    assertEquals(first.price.input, 1_000_000);
    assertEquals(first.price_paid.input, 800_000);
    assertEquals(first.price_paid.output, 1_600_000);
  },
);
