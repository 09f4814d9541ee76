/** A member's account page: the account viewed, their role, and the switcher among their accounts. */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { ConsoleContext, ConsoleEnv } from "../console_env.ts";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";

/** The member and account of a member's session (member pages only run for members). */
export function memberOf(c: ConsoleContext): { memberId: string; accountId: string } {
  const role = c.get("session").role;
  if (role.kind !== "member") throw new GatewayError("members_only", 403, "Members only");
  return { memberId: role.memberId, accountId: role.accountId };
}

export function memberAccountPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/account", async (c) => {
    const { memberId, accountId } = memberOf(c);
    const memberships = await gateway.members.store.membershipsOf(memberId);
    const current = memberships.find((m) => m.account_id === accountId);
    const session = c.get("session");
    return renderPage(
      c,
      <>
        <section class="card" aria-labelledby="account-heading">
          <h2 id="account-heading">Account</h2>
          {current
            ? (
              <dl class="facts">
                <dt>Account</dt>
                <dd>
                  <code>{current.account_id}</code>
                </dd>
                <dt>Your role</dt>
                <dd>{current.role}</dd>
              </dl>
            )
            : <p class="notice">You are not a member of any account now.</p>}
        </section>
        {memberships.length > 1
          ? (
            <section class="card" aria-labelledby="switch-heading">
              <h2 id="switch-heading">Switch account</h2>
              <form method="post" action="/console/account" class="row">
                <CsrfField session={session} />
                <Field
                  name="account_id"
                  label="Account"
                  value={accountId}
                  options={memberships.map((m) => [m.account_id, `${m.account_id} (${m.role})`])}
                />
                <button type="submit">Switch</button>
              </form>
            </section>
          )
          : null}
      </>,
      { title: "Account" },
    );
  });
  app.post("/console/account", async (c) => {
    const { memberId } = memberOf(c);
    const accountId = (await readForm(c)).account_id ?? "";
    if (!(await gateway.members.store.roleIn(memberId, accountId))) {
      throw new GatewayError("not_a_member", 403, "You are not a member of that account");
    }
    await gateway.consoleSessions.setRole(c.get("session").id, {
      kind: "member",
      memberId,
      accountId,
    });
    return c.redirect("/console/account", 303);
  });
  return app;
}
