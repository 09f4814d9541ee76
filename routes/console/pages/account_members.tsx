/**
 * The members of the account a member views, for its owners: invite (mailed, or the link shown
 * once when there is no SMTP), change a role, remove (the member's keys stay with the account).
 * Changes are audited like the admin API's equivalents.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { GatewayError } from "../../../core/errors.ts";
import { checkRole } from "../../../core/members/member_input.ts";
import type { InvitationAnswer } from "../../../core/members/invitations.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { memberOf } from "./member_account.tsx";
import { memberRole } from "../begin_session.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";

const ROLE_OPTIONS = [["member", "member"], ["owner", "owner"]] as const;

type Row = Awaited<ReturnType<Gateway["members"]["membersOfAccount"]>>[number];

/** The account of an owner's session; anyone else gets 403. */
async function ownedAccount(c: ConsoleContext, gateway: Gateway) {
  const { memberId, accountId } = memberOf(c);
  if ((await gateway.members.store.roleIn(memberId, accountId)) !== "owner") {
    throw new GatewayError("owners_only", 403, "Only the account's owners manage its members");
  }
  return { memberId, accountId };
}

function MemberRows({ c, rows, self }: { c: ConsoleContext; rows: Row[]; self: string }) {
  const session = c.get("session");
  return (
    <DataTable
      rows={rows}
      empty="No member."
      columns={[
        { header: "Name", cell: (row) => row.name },
        { header: "Email", cell: (row) => row.email },
        {
          header: "Role",
          cell: (row) => (
            <form method="post" action={`/console/members/${row.member_id}/role`} class="row">
              <CsrfField session={session} />
              <Field
                name="role"
                id={`role-${row.member_id}`}
                label="Role"
                value={row.role}
                options={ROLE_OPTIONS}
              />
              <button type="submit" class="quiet">Change</button>
            </form>
          ),
        },
        {
          header: "",
          cell: (row) => (
            <form method="post" action={`/console/members/${row.member_id}/remove`}>
              <CsrfField session={session} />
              <button type="submit" class="danger">
                {row.member_id === self ? "Leave" : "Remove"}
              </button>
            </form>
          ),
        },
      ]}
    />
  );
}

export function accountMemberPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const members = gateway.members;

  async function page(
    c: ConsoleContext,
    notice?: { text: string; error?: boolean; invitation?: InvitationAnswer },
    status?: ContentfulStatusCode,
  ) {
    const { memberId, accountId } = await ownedAccount(c, gateway);
    const rows = await members.membersOfAccount(accountId);
    return renderPage(
      c,
      <>
        {notice
          ? (
            <p class={notice.error ? "error" : "notice"} role={notice.error ? "alert" : "status"}>
              {notice.text}
            </p>
          )
          : null}
        {notice?.invitation?.link
          ? (
            <section class="card">
              <p class="notice">
                No mail is sent by this gateway: pass this link on yourself. It is shown once and
                works once, until {notice.invitation.expires_at}.
              </p>
              <pre id="invitation-link">{notice.invitation.link}</pre>
              <button type="button" data-copy="invitation-link" hidden>Copy</button>
            </section>
          )
          : null}
        <section class="card" aria-labelledby="members-heading">
          <h2 id="members-heading">Members of {accountId}</h2>
          <MemberRows c={c} rows={rows} self={memberId} />
        </section>
        <section class="card" aria-labelledby="invite-heading">
          <h2 id="invite-heading">Invite</h2>
          <form method="post" action="/console/members" class="row">
            <CsrfField session={c.get("session")} />
            <Field name="email" label="Email" type="email" required />
            <Field
              name="role"
              id="invite-role"
              label="Role"
              value="member"
              options={ROLE_OPTIONS}
            />
            <button type="submit">Invite</button>
          </form>
        </section>
      </>,
      { title: "Members", status, copyButtons: true },
    );
  }

  function refused(c: ConsoleContext, error: unknown) {
    const problem = formProblemOf(error);
    if (problem.status === 403) throw error;
    return page(c, { text: problem.message, error: true }, problem.status);
  }

  app.get("/console/members", (c) => page(c));
  app.post("/console/members", async (c) => {
    const { memberId, accountId } = await ownedAccount(c, gateway);
    const form = await readForm(c);
    let invitation: InvitationAnswer;
    try {
      const role = checkRole(form.role);
      invitation = await consoleChange(gateway, {
        c,
        change: {
          route: "/admin/accounts/:id/invitations",
          method: "POST",
          target: { kind: "account", id: accountId },
          apply: () =>
            members.invite(
              { accountId, email: form.email, role, invitedBy: `member:${memberId}` },
              baseUrlOf(gateway, c.get("url")),
            ),
          outcomeOf: (answer) => ({ status: 201, returned: { ...answer, link: undefined } }),
        },
      });
    } catch (error) {
      return await refused(c, error);
    }
    const text = invitation.sent
      ? `Invited ${invitation.email}: the mail is on its way.`
      : `Invited ${invitation.email}.`;
    return await page(c, { text, invitation }, 201);
  });
  app.post("/console/members/:memberId/role", async (c) => {
    const { accountId } = await ownedAccount(c, gateway);
    const target = c.req.param("memberId");
    const form = await readForm(c);
    try {
      const role = checkRole(form.role);
      await consoleChange(gateway, {
        c,
        change: {
          route: "/admin/accounts/:id/members/:memberId",
          method: "PATCH",
          target: { kind: "account", id: accountId },
          apply: () => members.changeRole(accountId, target, role),
        },
      });
    } catch (error) {
      return await refused(c, error);
    }
    return await page(c, { text: "The role is changed." });
  });
  app.post("/console/members/:memberId/remove", async (c) => {
    const { memberId, accountId } = await ownedAccount(c, gateway);
    const target = c.req.param("memberId");
    try {
      await consoleChange(gateway, {
        c,
        change: {
          route: "/admin/accounts/:id/members/:memberId",
          method: "DELETE",
          target: { kind: "account", id: accountId },
          apply: () => members.removeMember(accountId, target),
        },
      });
    } catch (error) {
      return await refused(c, error);
    }
    if (target === memberId) {
      await gateway.consoleSessions.setRole(
        c.get("session").id,
        await memberRole(gateway, memberId),
      );
      return c.redirect("/console/account", 303);
    }
    return await page(c, { text: "The member is removed; the keys they made stay." });
  });
  return app;
}
