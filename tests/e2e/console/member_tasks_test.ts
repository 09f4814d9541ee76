/**
 * A video task of an account's key in the token management area: the dashboard lists it as
 * running while the upstream works on it, and the usage page lists it with the account's tasks;
 * a member of another account sees neither.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { memberClient } from "../../helpers/member_console.ts";
import { inviteMember, MEMBER_PASSWORD } from "../../helpers/member_area.ts";
import { setupVideo, videoClient } from "../../helpers/video_setup.ts";

Deno.test(
  "member tasks: a running video task is on the dashboard and the usage page of its account only",
  serverTest,
  async () => {
    await using s = await setupVideo({ ark: { plan: () => ({ runningPolls: 1_000_000 }) } });
    const { gw } = s;
    const account = await gw.admin("POST", "/admin/accounts", {
      name: "film",
      balance: 50_000_000,
    });
    assertEquals(account.status, 201, JSON.stringify(account.body));
    const key = await gw.admin("POST", "/admin/keys", {
      name: "studio",
      account_id: account.body.id,
    });
    assertEquals(key.status, 201, JSON.stringify(key.body));
    const submitted = await videoClient(gw.url, key.body.key).submit({
      model: "vid-2",
      prompt: "a long take",
    });
    const answer = await submitted.json();
    assertEquals(submitted.status, 200, JSON.stringify(answer));
    const taskId = answer.id as string;
    assertOk(taskId, JSON.stringify(answer));

    const signIn = async (email: string, accountId: string) => {
      await inviteMember(gw, { email, role: "owner", accountId });
      const client = memberClient(gw.url);
      await (await client.signInMember(email, MEMBER_PASSWORD)).body?.cancel();
      return client;
    };
    const owner = await signIn("kim@example.com", account.body.id);
    const dashboard = await (await owner.get("/console/account")).text();
    assertOk(dashboard.includes(taskId), "the running task is on the dashboard");
    assertOk(dashboard.includes(">studio</a></td>"), "with its key's name, linked");
    const usage = await (await owner.get("/console/account/usage")).text();
    assertOk(usage.includes(taskId), "and with the account's tasks");

    const other = await gw.admin("POST", "/admin/accounts", { name: "other" });
    const stranger = await signIn("max@example.com", other.body.id);
    assertOk(!(await (await stranger.get("/console/account")).text()).includes(taskId));
    assertOk(!(await (await stranger.get("/console/account/usage")).text()).includes(taskId));
  },
);
