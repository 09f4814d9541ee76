/**
 * A member's keys in the token management area: the list (an owner sees every key of the
 * account, a member the keys they made), the New key form, and the page that shows a new key's
 * secret once with SDK snippets. Every read and change goes through AccountArea, scoped by the
 * session's account; changes are audited as the member's.
 */

import { Hono } from "hono";
import type { ConsoleMoney } from "../money.tsx";
import { AccountArea } from "../../../core/account_area/account_area.ts";
import type { AccountActor } from "../../../core/account_area/actor.ts";
import { memberKeyInputSchema } from "../../../core/account_area/member_key_schema.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import { hasIdShape } from "../../params.ts";
import { validate } from "../../validation.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { readForm, readFormValues } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { SdkSnippets } from "../key_facts.tsx";
import { accountActorOf } from "../member_actor.ts";
import { memberChange } from "../member_change.ts";
import { MemberKeyForm } from "../member_key_form.tsx";
import { memberKeyInputOf } from "../member_key_fields.ts";
import { renderPage } from "../render.tsx";
import { SecretOnce } from "../secret_once.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

type MemberKey = Awaited<ReturnType<AccountArea["keys"]>>[number];

/** Who made a key, as the list says it. */
export function madeBy(key: MemberKey, actor: AccountActor): string {
  if (key.created_by === null) return "the operator";
  return key.created_by === actor.memberId ? "you" : key.created_by;
}

function KeyRows(
  { keys, actor, money }: { keys: MemberKey[]; actor: AccountActor; money: ConsoleMoney },
) {
  return (
    <DataTable
      rows={keys}
      empty="No key yet: make one with New key."
      columns={[
        {
          header: "Name",
          cell: (key) => <a href={`/console/account/keys/${key.id}`}>{key.name}</a>,
        },
        { header: "Prefix", cell: (key) => <code>{key.prefix}…</code> },
        { header: "Models", cell: (key) => key.models?.join(", ") ?? "all of the account's" },
        {
          header: "State",
          cell: (key) => key.enabled ? "enabled" : <span class="bad">disabled</span>,
        },
        { header: "Spent today", cell: (key) => money.amount(key.spend_today) },
        { header: "Expires", cell: (key) => key.expires_at ?? "never" },
        actor.role === "owner" && { header: "Made by", cell: (key) => madeBy(key, actor) },
      ]}
    />
  );
}

/** The id in the path when it has a key id's shape; else the key's 404. */
export function memberKeyIdOf(c: ConsoleContext): string {
  const id = c.req.param("id") ?? "";
  if (!hasIdShape(id, "key")) {
    throw new GatewayError("key_not_found", 404, "No key of this account has this id");
  }
  return id;
}

export function memberKeyPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const area = new AccountArea(gateway);

  async function newKeyPage(
    c: ConsoleContext,
    options: { fields?: Record<string, string>; chosen?: string[]; problem?: string } = {},
    status: ContentfulStatusCode = 200,
  ) {
    const actor = await accountActorOf(gateway, c);
    const models = await area.models(actor);
    return renderPage(
      c,
      <section class="card" aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">A key of this account</h2>
        <p class="muted">
          The key pays from the account's wallet; its own limits only narrow what it may spend.
        </p>
        {options.problem ? <p class="error" role="alert">{options.problem}</p> : null}
        <MemberKeyForm
          c={c}
          action="/console/account/keys"
          models={models}
          chosen={options.chosen ?? []}
          fields={options.fields ?? {}}
          isNew
          submit="Create key"
        />
      </section>,
      { title: "New key", status },
    );
  }

  app.get("/console/account/keys", async (c) => {
    const actor = await accountActorOf(gateway, c);
    const keys = await area.keys(actor);
    return renderPage(
      c,
      <>
        <p>
          <a class="button" href="/console/account/keys/new">New key</a>
        </p>
        <section class="card" aria-label="Keys">
          <p class="muted">
            {actor.role === "owner"
              ? "Every key of the account."
              : "The keys you made; the account's owners see them all."}
          </p>
          <KeyRows keys={keys} actor={actor} money={c.get("money")} />
        </section>
      </>,
      { title: "Keys" },
    );
  });
  app.get("/console/account/keys/new", (c) => newKeyPage(c));
  app.post("/console/account/keys", async (c) => {
    const actor = await accountActorOf(gateway, c);
    const fields = await readForm(c);
    const chosen = await readFormValues(c, "models");
    const { csrf: _csrf, ...shown } = fields;
    let created;
    try {
      const input = validate(memberKeyInputSchema, memberKeyInputOf(fields, chosen));
      created = await memberChange(gateway, {
        c,
        actor,
        change: {
          route: "/console/account/keys",
          method: "POST",
          target: { kind: "key", id: null },
          readTarget: (id) => area.key(actor, id),
          apply: () => area.createKey(actor, input),
          outcomeOf: (result) => ({ status: 201, createdId: result.id }),
        },
      });
    } catch (error) {
      const problem = formProblemOf(error);
      return await newKeyPage(
        c,
        { fields: shown, chosen, problem: problem.message },
        problem.status,
      );
    }
    await gateway.consoleSessions.putFlash(
      c.get("session").id,
      { owner: created.id, secret: created.key },
    );
    return c.redirect(`/console/account/keys/${created.id}/created`, 303);
  });
  app.get("/console/account/keys/:id/created", async (c) => {
    const id = memberKeyIdOf(c);
    const actor = await accountActorOf(gateway, c);
    const key = await area.key(actor, id);
    const secret = await gateway.consoleSessions.takeFlash(c.get("session").id, id);
    const models = key.models ?? await area.models(actor);
    return renderPage(
      c,
      <>
        <SecretOnce
          secret={secret}
          heading={`The secret of ${key.name}`}
          keep="only its hash"
          again="Rotate the key on its page to get a new one."
          back={{ href: `/console/account/keys/${id}`, label: "Go to the key" }}
        />
        {secret
          ? <SdkSnippets baseUrl={baseUrlOf(gateway, c.get("url"))} model={models[0]} />
          : null}
      </>,
      { title: "Key secret", copyButtons: Boolean(secret) },
    );
  });
  return app;
}
