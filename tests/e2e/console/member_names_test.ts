/**
 * Names on members' pages, over HTTP: a key is its name linked to its member page only when the
 * member manages it (an owner: every key of the account; a plain member: their own); another's key
 * is its id unlinked, and nothing links to an operator page (keys, channels, models).
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { textOf } from "../../helpers/member_console.ts";
import { chatWith, startMemberArea } from "../../helpers/member_area.ts";

Deno.test(
  "member names: own keys by name linked to their member page, others' by id, no operator links",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    const owner = await area.member("kim@example.com", "owner");
    const plain = await area.member("lee@example.com", "member");
    const made = async (client: typeof owner, name: string) => {
      const response = await client.postMember("/console/account/keys", { name, enabled: "true" });
      await response.body?.cancel();
      const id = response.headers.get("location")!.split("/")[4];
      const secret = textOf(
        await (await client.get(`/console/account/keys/${id}/created`)).text(),
        "secret",
      );
      return { id, secret };
    };
    const first = await made(owner, "first app");
    const second = await made(plain, "second app");
    assertEquals((await chatWith(gw, first.secret)).status, 200);
    assertEquals((await chatWith(gw, second.secret)).status, 200);
    await gw.settle();
    const own = (id: string, name: string) => `<a href="/console/account/keys/${id}">${name}</a>`;

    for (const path of ["/console/account/usage", "/console/account/wallet"]) {
      const plainPage = await (await plain.get(path)).text();
      assertOk(plainPage.includes(own(second.id, "second app")), `${path}: own key linked`);
      if (plainPage.includes(first.id)) {
        assertOk(!plainPage.includes(`/console/account/keys/${first.id}`), `${path}: not linked`);
      }
      const ownerPage = await (await owner.get(path)).text();
      assertOk(ownerPage.includes(own(first.id, "first app")), `${path}: owner's keys`);
      assertOk(ownerPage.includes(own(second.id, "second app")), `${path}: owner's keys`);
      for (const page of [plainPage, ownerPage]) {
        for (const operatorPath of ["/console/keys/", "/console/channels/", "/console/models/"]) {
          assertOk(!page.includes(`href="${operatorPath}`), `${path}: no ${operatorPath}`);
        }
        assertOk(!page.includes('action="/console/search"'), `${path}: no search box`);
      }
    }
    const usage = await (await plain.get("/console/account/usage")).text();
    assertOk(usage.includes(first.id), "the other member's key shown by id");
  },
);
