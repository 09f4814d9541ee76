/**
 * Members manage keys in the token management area over HTTP, signed in through the real
 * invitation and sign-in flow: create (the secret shown once, with SDK snippets), use, edit,
 * disable (the key gets 401 key_disabled), enable, rotate with a chosen grace, delete; bad input
 * is the same form again with nothing changed; a member sees and changes only the keys they made,
 * an owner all of the account's, and no one another account's.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import { type MemberClient, postRaw, textOf } from "../../helpers/member_console.ts";
import { chatWith, MODELS, startMemberArea } from "../../helpers/member_area.ts";

/** Posts the New key form; the new key's id from the redirect. */
async function createKey(
  url: string,
  client: MemberClient,
  fields: Record<string, string>,
  models: string[] = [],
): Promise<string> {
  const body = new URLSearchParams(fields);
  for (const model of models) body.append("models", model);
  const response = await postRaw(url, client, "/console/account/keys", body);
  await response.body?.cancel();
  assertEquals(response.status, 303, "created");
  return response.headers.get("location")!.match(/\/console\/account\/keys\/(key_\w+)\/created$/)![
    1
  ];
}

Deno.test(
  "member keys: create shows the secret once with snippets; edit, disable (401 key_disabled), enable, rotate with grace, delete",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    const owner = await area.member("kim@example.com", "owner");

    const form = await (await owner.get("/console/account/keys/new")).text();
    assertOk(form.includes('<select id="models" name="models" multiple'), "models multi-select");
    for (const model of MODELS) assertOk(form.includes(`<option value="${model}">`), model);

    const id = await createKey(gw.url, owner, {
      name: "app one",
      rpm: "60",
      cap_day: "5",
      ip_allowlist: "127.0.0.1\n::1",
      enabled: "true",
    }, [MODELS[0]]);
    const created = await (await owner.get(`/console/account/keys/${id}/created`)).text();
    const secret = textOf(created, "secret");
    assertOk(secret.startsWith("sk-"), secret);
    for (const sdk of ['from "openai"', 'from "@anthropic-ai/sdk"', 'from "@google/genai"']) {
      assertOk(created.includes(sdk.replaceAll('"', "&quot;")) || created.includes(sdk), sdk);
    }
    assertOk(created.includes(`${gw.url}/v1`), "the base URL");
    assertOk(created.includes('data-copy="secret"'), "a copy button");
    const again = await (await owner.get(`/console/account/keys/${id}/created`)).text();
    assertOk(!again.includes(secret), "a second view has no secret");
    assertOk(again.includes("cannot be shown again"));

    const view = (await gw.admin("GET", `/admin/keys/${id}`)).body;
    assertEquals(view.account_id, area.accountId);
    assertEquals(view.models, [MODELS[0]]);
    assertEquals(view.rpm, 60);
    assertEquals(view.spend_limits, { day: 5_000_000 });
    assertEquals(view.ip_allowlist, ["127.0.0.1", "::1"]);
    assertEquals((await chatWith(gw, secret)).status, 200, "the key works");
    assertEquals((await chatWith(gw, secret, MODELS[1])).status >= 400, true, "not its model");

    const edited = await owner.postMember(`/console/account/keys/${id}/edit`, {
      name: "app renamed",
      rpm: "",
      tpm: "100000",
      cap_day: "",
      cap_week: "",
      cap_month: "9",
      ip_allowlist: "",
      expires_at: "",
    });
    await edited.body?.cancel();
    assertEquals(edited.status, 303);
    const after = (await gw.admin("GET", `/admin/keys/${id}`)).body;
    assertEquals(after.name, "app renamed");
    assertEquals(after.rpm, null);
    assertEquals(after.tpm, 100_000);
    assertEquals(after.models, null, "no model chosen: every model of the account");
    assertEquals(after.spend_limits, { month: 9_000_000 });
    assertEquals(after.ip_allowlist, null);

    const disabled = await owner.postMember(`/console/account/keys/${id}/enabled`, {
      enabled: "false",
    });
    await disabled.body?.cancel();
    assertEquals(disabled.status, 303);
    const refused = await chatWith(gw, secret);
    assertEquals(refused.status, 401);
    assertEquals(refused.body.error?.code, "key_disabled");
    const page = await (await owner.get(`/console/account/keys/${id}`)).text();
    assertOk(page.includes(">Enable</button>"), "the page offers Enable");
    await (await owner.postMember(`/console/account/keys/${id}/enabled`, { enabled: "true" }))
      .body?.cancel();
    const again2 = await chatWith(gw, secret);
    assertEquals(again2.status, 200, `enabled again: ${JSON.stringify(again2.body)}`);

    const rotated = await owner.postMember(`/console/account/keys/${id}/rotate`, {
      grace_seconds: "3600",
    });
    await rotated.body?.cancel();
    assertEquals(rotated.headers.get("location"), `/console/account/keys/${id}/created`);
    const fresh = textOf(
      await (await owner.get(`/console/account/keys/${id}/created`)).text(),
      "secret",
    );
    assertOk(fresh !== secret);
    assertEquals((await chatWith(gw, fresh)).status, 200, "the new secret");
    assertEquals((await chatWith(gw, secret)).status, 200, "the old one, in its grace");
    const detail = await (await owner.get(`/console/account/keys/${id}`)).text();
    assertOk(detail.includes("Previous secret"), "the grace is shown");
    const badGrace = await owner.postMember(`/console/account/keys/${id}/rotate`, {
      grace_seconds: "-5",
    });
    assertEquals(badGrace.status, 400);
    assertOk((await badGrace.text()).includes("grace_seconds"));

    const unconfirmed = await owner.postMember(`/console/account/keys/${id}/delete`, {});
    assertEquals(unconfirmed.status, 400);
    assertOk((await unconfirmed.text()).includes("Tick the box"));
    assertEquals((await gw.admin("GET", `/admin/keys/${id}`)).status, 200, "not deleted");
    const deleted = await owner.postMember(`/console/account/keys/${id}/delete`, {
      confirm: "yes",
    });
    await deleted.body?.cancel();
    assertEquals(deleted.headers.get("location"), "/console/account/keys");
    assertEquals((await chatWith(gw, fresh)).status, 401, "a deleted key is refused");
    const gone = await owner.get(`/console/account/keys/${id}`);
    assertEquals(gone.status, 404);
    await gone.body?.cancel();

    const audit = (await gw.admin("GET", `/admin/audit?target_id=${id}`)).body.data;
    const kim = (await gw.admin("GET", "/admin/members?email=kim@example.com")).body.data[0].id;
    assertOk(audit.length >= 5, JSON.stringify(audit));
    assertOk(audit.every((record: { actor: string }) => record.actor === `member:${kim}`));
    assertOk(!JSON.stringify(audit).includes(secret) && !JSON.stringify(audit).includes(fresh));
  },
);

Deno.test(
  "member keys: bad input is the same form with the service's message, and nothing is made or changed",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    const owner = await area.member("kim@example.com", "owner");
    const count = async () =>
      (await gw.admin("GET", `/admin/accounts/${area.accountId}/keys`)).body.data.length;

    const body = new URLSearchParams({ name: "outside", enabled: "true" });
    body.append("models", MODELS[0]);
    body.append("models", "not-a-model");
    const outside = await postRaw(gw.url, owner, "/console/account/keys", body);
    const html = await outside.text();
    assertEquals(outside.status, 400);
    assertOk(
      html.includes("models must be among the account&#39;s models") ||
        html.includes("models must be among the account's models"),
      html,
    );
    assertOk(html.includes("not-a-model"));
    assertOk(html.includes('value="outside"'), "the form keeps what was typed");
    assertEquals(await count(), 0, "nothing created");

    const badRpm = await owner.postMember("/console/account/keys", { name: "x", rpm: "many" });
    assertEquals(badRpm.status, 400);
    assertOk((await badRpm.text()).includes("rpm"));
    const badRange = await owner.postMember("/console/account/keys", {
      name: "x",
      ip_allowlist: "10.0.0.1/8",
    });
    assertEquals(badRange.status, 400);
    assertOk((await badRange.text()).includes("10.0.0.0/8"));
    assertEquals(await count(), 0, "still nothing");

    const forged = await owner.post("/console/account/keys", { name: "forged" }, {
      csrf: "not-the-token",
    });
    assertEquals(forged.status, 403, "a POST without the session's CSRF token");
    await forged.body?.cancel();
    assertEquals(await count(), 0, "nothing made by it");

    const id = await createKey(gw.url, owner, { name: "good", enabled: "true" });
    const badEdit = new URLSearchParams({ name: "renamed" });
    badEdit.append("models", "not-a-model");
    const refused = await postRaw(gw.url, owner, `/console/account/keys/${id}/edit`, badEdit);
    assertEquals(refused.status, 400);
    assertOk((await refused.text()).includes("not-a-model"));
    assertEquals((await gw.admin("GET", `/admin/keys/${id}`)).body.name, "good", "unchanged");
    const noName = await owner.postMember("/console/account/keys", { name: "" });
    assertEquals(noName.status, 400);
    await noName.body?.cancel();
    const disabled = await createKey(gw.url, owner, { name: "off" });
    assertEquals((await gw.admin("GET", `/admin/keys/${disabled}`)).body.enabled, false);
  },
);

Deno.test(
  "member keys: a member sees and changes only the keys they made, an owner all of the account's, no one another account's",
  serverTest,
  async () => {
    await using area = await startMemberArea();
    const { gw } = area;
    const owner = await area.member("kim@example.com", "owner");
    const plain = await area.member("lee@example.com", "member");
    const ownerKey = await createKey(gw.url, owner, { name: "owner key", enabled: "true" });
    const memberKey = await createKey(gw.url, plain, { name: "member key", enabled: "true" });

    const ownerList = await (await owner.get("/console/account/keys")).text();
    assertOk(ownerList.includes("owner key") && ownerList.includes("member key"));
    assertOk(ownerList.includes("Made by"));
    const memberList = await (await plain.get("/console/account/keys")).text();
    assertOk(memberList.includes("member key") && !memberList.includes("owner key"));

    for (
      const [path, fields] of [
        [`/console/account/keys/${ownerKey}`, null],
        [`/console/account/keys/${ownerKey}/edit`, { name: "taken" }],
        [`/console/account/keys/${ownerKey}/enabled`, { enabled: "false" }],
        [`/console/account/keys/${ownerKey}/rotate`, { grace_seconds: "0" }],
        [`/console/account/keys/${ownerKey}/delete`, { confirm: "yes" }],
      ] as const
    ) {
      const response = fields ? await plain.postMember(path, fields) : await plain.get(path);
      assertEquals(response.status, 404, path);
      await response.body?.cancel();
    }
    const untouched = (await gw.admin("GET", `/admin/keys/${ownerKey}`)).body;
    assertEquals([untouched.name, untouched.enabled], ["owner key", true]);
    const byOwner = await owner.get(`/console/account/keys/${memberKey}`);
    assertEquals(byOwner.status, 200, "an owner manages a member's key");
    await byOwner.body?.cancel();

    const other = await area.account("other co");
    const stranger = await area.member("max@example.com", "owner", other);
    for (const id of [ownerKey, memberKey]) {
      const read = await stranger.get(`/console/account/keys/${id}`);
      assertEquals(read.status, 404);
      await read.body?.cancel();
      const changed = await stranger.postMember(`/console/account/keys/${id}/delete`, {
        confirm: "yes",
      });
      assertEquals(changed.status, 404);
      await changed.body?.cancel();
    }
    assertOk(!(await (await stranger.get("/console/account/keys")).text()).includes("owner key"));
    const operatorPage = await plain.get("/console/keys");
    assertEquals(operatorPage.status, 403, "operator pages stay closed");
    await operatorPage.body?.cancel();
    const nav = await (await plain.get("/console/account/keys")).text();
    for (const item of ["Dashboard", "Keys", "Usage", "Wallet", "Settings"]) {
      assertOk(nav.includes(`>${item}</a>`), item);
    }
    assertOk(!nav.includes('href="/console/channels"'), "no operator nav");
    assertOk(!nav.includes(">Members</a>"), "Members is for owners");
    assertOk(ownerList.includes(">Members</a>"), "an owner has Members");
  },
);
